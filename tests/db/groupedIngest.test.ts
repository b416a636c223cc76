// Group commit on a real database (SQLite, or PostgreSQL with TEST_DATABASE_URL): requests that
// share a transaction are answered for their own calls, and when the database refuses one
// request's data the shared transaction is rolled back and the others are stored alone.
import { describe, expect, it } from "vitest";
import { prepareIngestBody } from "@/lib/api/ingest";
import { dialectOf } from "@/lib/db/sql";
import type { Db } from "@/lib/db/client";
import { ingestGrouped } from "@/lib/ingest/groupedIngest";
import { useTestDb } from "../support/testDb";

const db = useTestDb("grouped");

const BASE_NS = 1_767_268_800_000_000_000n;

function call(id: string, session: string, k: number, extra: Record<string, unknown> = {}) {
  return {
    call_id: id,
    session_id: session,
    agent_name: "grouped-agent",
    start_ns: (BASE_NS + BigInt(k) * 1_000_000_000n).toString(),
    end_ns: (BASE_NS + BigInt(k) * 1_000_000_000n + 500_000_000n).toString(),
    status_code: 200,
    input_tokens: 100,
    input_messages: [{ role: "user", parts: [{ type: "text", content: `question ${k}` }] }],
    output_messages: [{ role: "assistant", parts: [{ type: "text", content: `answer ${k}` }] }],
    ...extra,
  };
}

const store = (body: unknown) => {
  const batch = prepareIngestBody("calls", body);
  if (batch.kind === "events") throw new Error("not calls");
  return ingestGrouped(db(), batch.calls);
};

/** A trigger that makes the database refuse any Call row whose id starts with "poison". */
async function poisonCalls(database: Db): Promise<void> {
  if (dialectOf(database) === "postgres") {
    await database.$executeRawUnsafe(
      `CREATE FUNCTION poison_call() RETURNS trigger AS $$ BEGIN IF NEW."id" LIKE 'poison%' THEN RAISE EXCEPTION 'poisoned call %', NEW."id"; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await database.$executeRawUnsafe(`CREATE TRIGGER poison_call BEFORE INSERT ON "Call" FOR EACH ROW EXECUTE FUNCTION poison_call()`);
  } else {
    await database.$executeRawUnsafe(`CREATE TRIGGER poison_call BEFORE INSERT ON "Call" WHEN NEW."id" LIKE 'poison%' BEGIN SELECT RAISE(ABORT, 'poisoned call'); END`);
  }
}

const callIds = async (session: string) =>
  (await db().call.findMany({ where: { sessionId: session }, select: { id: true }, orderBy: { id: "asc" } })).map((c) => c.id);

describe("grouped ingest on a real database", () => {
  it("answers each request for its own calls: accepted, duplicates and interruptions", async () => {
    const results = await Promise.all([
      store([call("g-a1", "g-s1", 1), call("g-a2", "g-s1", 2)]),
      store(call("g-b1", "g-s2", 1, { status_code: 429, error: "Rate limit reached" })),
      store(call("g-a1", "g-s1", 1)), // the same call_id as the first request's: one of the two stores it
    ]);
    expect(results[0]).toEqual({ received: 2, accepted: 2, duplicates: 0, interruptions: 0 });
    expect(results[1]).toEqual({ received: 1, accepted: 1, duplicates: 0, interruptions: 1 });
    expect(results[2]).toEqual({ received: 1, accepted: 0, duplicates: 1, interruptions: 0 });
    expect(await callIds("g-s1")).toEqual(["g-a1", "g-a2"]);
  });

  it("stores the other requests when the database refuses one of a shared transaction; the refused one fails alone", async () => {
    await poisonCalls(db());
    const requests = [0, 1, 2, 3, 4, 5].map((i) => call(i === 3 ? `poison-${i}` : `p-${i}`, `p-s${i % 2}`, i));
    const outcomes = await Promise.allSettled(requests.map((r) => store(r)));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(String((outcomes[3] as PromiseRejectedResult).reason)).toMatch(/poisoned call/);
    for (const o of outcomes.filter((o) => o.status === "fulfilled")) expect(o.value).toMatchObject({ accepted: 1, duplicates: 0 });
    // nothing of the refused shared transaction stayed: each good call once, the session counters agree
    expect(await callIds("p-s0")).toEqual(["p-0", "p-2", "p-4"]);
    expect(await callIds("p-s1")).toEqual(["p-1", "p-5"]);
    const sessions = await db().session.findMany({ where: { id: { in: ["p-s0", "p-s1"] } }, orderBy: { id: "asc" }, select: { id: true, callCount: true } });
    expect(sessions).toEqual([
      { id: "p-s0", callCount: 3 },
      { id: "p-s1", callCount: 2 },
    ]);
  });

  it("keeps a session's counters exact when its calls arrive in transactions that run at once (two on PostgreSQL)", async () => {
    // waves submitted a turn of the event loop apart: each wave's group starts while the last may be open
    const pending: Promise<unknown>[] = [];
    for (let wave = 0; wave < 6; wave++) {
      for (let i = 0; i < 5; i++) {
        const k = wave * 5 + i;
        pending.push(store(call(`c-${String(k).padStart(2, "0")}`, `c-s${k % 2}`, k)));
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = (await Promise.all(pending)) as { accepted: number }[];
    expect(results.every((r) => r.accepted === 1)).toBe(true);
    expect((await callIds("c-s0")).length).toBe(15);
    expect((await callIds("c-s1")).length).toBe(15);
    const sessions = await db().session.findMany({ where: { id: { in: ["c-s0", "c-s1"] } }, orderBy: { id: "asc" }, select: { id: true, callCount: true, inputTokens: true } });
    expect(sessions).toEqual([
      { id: "c-s0", callCount: 15, inputTokens: 1500n },
      { id: "c-s1", callCount: 15, inputTokens: 1500n },
    ]);
  });

  it("keeps an agent's last-seen time when a later request brings older calls, and moves its first-seen time back", async () => {
    const late = { agent_name: "late-agent" };
    await store(call("late-new", "late-s1", 100, late));
    const agent = () => db().agent.findUniqueOrThrow({ where: { name: "late-agent" } });
    const { lastSeenNs: newest, firstSeenNs: first } = await agent();
    await store(call("late-old", "late-s2", 1, late)); // a forwarder's backlog, sent after
    expect((await agent()).lastSeenNs).toBe(newest);
    expect((await agent()).firstSeenNs).toBeLessThan(first); // before, the first batch stored stayed the first sighting
    await store(call("late-newer", "late-s3", 200, late));
    expect((await agent()).lastSeenNs).toBeGreaterThan(newest);
  });
});
