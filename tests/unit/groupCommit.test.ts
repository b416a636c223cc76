// Group commit (lib/ingest/groupCommit.ts) against a recording stand-in for the transaction:
// which requests share a commit, when each is answered, and what happens when a shared
// transaction fails.
import { describe, expect, it } from "vitest";
import { GroupCommit, type GroupCommitOptions } from "@/lib/ingest/groupCommit";

type Req = { name: string; size?: number; bad?: boolean };

/** A transaction stand-in: records each group; a group holding a bad request fails whole; `hold()` keeps the next commits open. */
function recorder(options: Partial<GroupCommitOptions<Req>> = {}) {
  const groups: string[][] = [];
  let gate: Promise<void> | null = null;
  let open = () => {};
  const queue = new GroupCommit<Req, string>(
    async (group) => {
      groups.push(group.map((r) => r.name));
      if (gate) await gate;
      if (group.some((r) => r.bad)) throw new Error(`refused: ${group.find((r) => r.bad)!.name}`);
      return group.map((r) => `stored ${r.name}`);
    },
    { sizeOf: (r) => r.size ?? 1, maxGroupSize: 10, gatherMs: 50, ...options },
  );
  return {
    queue,
    groups,
    hold: () => void (gate = new Promise((resolve) => (open = resolve))),
    release: () => {
      gate = null;
      open();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("group commit", () => {
  it("commits a lone request by itself and answers it with its own result", async () => {
    const { queue, groups } = recorder();
    expect(await queue.submit({ name: "a" })).toBe("stored a");
    expect(groups).toEqual([["a"]]);
  });

  it("puts requests submitted together in one transaction, each answered with its own result", async () => {
    const { queue, groups } = recorder();
    const results = await Promise.all(["a", "b", "c"].map((name) => queue.submit({ name })));
    expect(results).toEqual(["stored a", "stored b", "stored c"]);
    expect(groups).toEqual([["a", "b", "c"]]);
  });

  it("lets requests that arrive during a commit share the next one, and answers none before its commit", async () => {
    const { queue, groups, hold, release } = recorder();
    hold();
    const first = queue.submit({ name: "a" });
    await tick();
    expect(groups).toEqual([["a"]]);
    const answered: string[] = [];
    const later = ["b", "c"].map((name) => queue.submit({ name }).then((r) => void answered.push(r)));
    await tick();
    expect(answered).toEqual([]); // queued behind the open transaction
    release();
    await first;
    await Promise.all(later);
    expect(groups).toEqual([["a"], ["b", "c"]]);
    expect(answered).toEqual(["stored b", "stored c"]);
  });

  it("waits for a request still being read before committing, then commits it with the others", async () => {
    const { queue, groups } = recorder();
    let finishReading = () => {};
    const reading = queue.arrive(() => new Promise<Req>((resolve) => (finishReading = () => resolve({ name: "slow" }))));
    const fast = queue.submit({ name: "fast" });
    await tick();
    await tick();
    expect(groups).toEqual([]); // the free transaction waits for the arriving request
    finishReading();
    const slow = queue.submit(await reading);
    expect(await Promise.all([fast, slow])).toEqual(["stored fast", "stored slow"]);
    expect(groups).toEqual([["fast", "slow"]]);
  });

  it("does not wait longer than gatherMs for a request being read", async () => {
    const { queue, groups } = recorder({ gatherMs: 5 });
    void queue.arrive(() => new Promise(() => {})); // never finishes reading
    expect(await queue.submit({ name: "a" })).toBe("stored a");
    expect(groups).toEqual([["a"]]);
  });

  it("runs each request of a failed shared transaction again alone: only the bad one fails", async () => {
    const { queue, groups } = recorder();
    const outcomes = await Promise.allSettled([queue.submit({ name: "a" }), queue.submit({ name: "bad", bad: true }), queue.submit({ name: "c" })]);
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual(["stored a", "refused: bad", "stored c"]);
    expect(groups).toEqual([["a", "bad", "c"], ["a"], ["bad"], ["c"]]);
  });

  it("stops a group at the size limit; a request over the limit goes alone", async () => {
    const { queue, groups } = recorder({ maxGroupSize: 10 });
    await Promise.all([
      queue.submit({ name: "a", size: 4 }),
      queue.submit({ name: "b", size: 4 }),
      queue.submit({ name: "c", size: 4 }),
      queue.submit({ name: "huge", size: 30 }),
      queue.submit({ name: "d", size: 1 }),
    ]);
    expect(groups).toEqual([["a", "b"], ["c"], ["huge"], ["d"]]);
  });

  it("with a concurrency of 2 starts a second transaction while the first is open, and no third", async () => {
    const { queue, groups, hold, release } = recorder({ concurrency: 2 });
    hold();
    const first = queue.submit({ name: "a" });
    await tick();
    const second = queue.submit({ name: "b" });
    await tick();
    expect(groups).toEqual([["a"], ["b"]]); // both open at once
    const answered: string[] = [];
    const later = ["c", "d"].map((name) => queue.submit({ name }).then((r) => void answered.push(r)));
    await tick();
    expect(groups).toEqual([["a"], ["b"]]);
    expect(answered).toEqual([]);
    release();
    expect(await Promise.all([first, second])).toEqual(["stored a", "stored b"]);
    await Promise.all(later);
    expect(groups.slice(2).flat().sort()).toEqual(["c", "d"]);
    expect(answered.sort()).toEqual(["stored c", "stored d"]);
  });
});
