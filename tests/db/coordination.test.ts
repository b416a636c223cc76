// Several server processes on one database (SPEC §7), simulated by workers with different holder
// names on one real database (SQLite, or PostgreSQL with TEST_DATABASE_URL) and a clock the test
// controls: a lease has one holder at a time and passes on when it expires; a claimed row is
// sent by one process and taken over once the claim expires; the alert scan and the sweep run
// in one process at a time, and the work of a process that stops mid-task is taken over.
import { describe, expect, it } from "vitest";
import { AlertWorker, MARK_KEY, SCAN_LEASE } from "@/lib/alerts/worker";
import { createWebhook } from "@/lib/alerts/webhooks";
import { configDefaults } from "@/lib/config/load";
import { claimPending, releaseClaim } from "@/lib/coordination/claims";
import { acquireLease, releaseLease, withLease } from "@/lib/coordination/lease";
import { leaseMs, Sweeper, SWEEP_LEASE } from "@/lib/sweeps/scheduler";
import { testPostgresUrl } from "../support/database";
import { useTestDb } from "../support/testDb";

const SEC = 1_000_000_000n;
const T0 = 1_800_000_000n * SEC;
const db = useTestDb("coordination");
const quiet = () => undefined;

describe("leases", () => {
  it("have one holder at a time, renewed by it, taken over only once expired, free again once released", async () => {
    const now = T0;
    expect(await acquireLease(db(), "job", "A", now, 5_000)).toBe("taken");
    expect(await acquireLease(db(), "job", "B", now + 1n * SEC, 5_000)).toBeNull();
    expect(await acquireLease(db(), "job", "A", now + 2n * SEC, 5_000)).toBe("renewed"); // now until +7 s
    expect(await acquireLease(db(), "job", "B", now + 6n * SEC, 5_000)).toBeNull();
    expect(await acquireLease(db(), "job", "B", now + 7n * SEC, 5_000)).toBe("taken"); // A stopped renewing
    expect(await acquireLease(db(), "job", "A", now + 8n * SEC, 5_000)).toBeNull();
    await releaseLease(db(), "job", "A"); // not A's any more: changes nothing
    expect(await acquireLease(db(), "job", "A", now + 9n * SEC, 5_000)).toBeNull();
    await releaseLease(db(), "job", "B");
    expect(await acquireLease(db(), "job", "A", now + 9n * SEC, 5_000)).toBe("taken");
    // another name is another lease
    expect(await acquireLease(db(), "other", "B", now + 9n * SEC, 5_000)).toBe("taken");
  });

  it("go to exactly one of many processes asking at the same moment", async () => {
    const contenders = Array.from({ length: 8 }, (_, i) => `P${i}`);
    const grants = await Promise.all(contenders.map((h) => acquireLease(db(), "contended", h, T0, 5_000)));
    expect(grants.filter((g) => g === "taken")).toHaveLength(1);
    expect(grants.filter((g) => g === null)).toHaveLength(7);
  });

  it("are renewed while long work runs under withLease, and released after it", async () => {
    let clock = T0 + 100n * SEC;
    const o = { db: db(), name: "long", holder: "A", ttlMs: 300, now: () => clock, log: quiet };
    const result = await withLease(o, async (grant) => {
      expect(grant).toBe("taken");
      // the work outlasts the lease several times over; the renewals keep it
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 150));
        clock += 100_000_000n;
        expect(await acquireLease(db(), "long", "B", clock, 300)).toBeNull();
      }
      return "done";
    });
    expect(result).toBe("done");
    expect(await acquireLease(db(), "long", "B", clock, 300)).toBe("taken");
    expect(await withLease({ ...o, holder: "C" }, async () => "ran")).toBeNull();
  });

  it("never take the lease again after withLease released it, however late a renewal answers", async () => {
    const clock = T0 + 200n * SEC;
    // the first renewal is slow to answer, the second quick: before, only the latest was awaited
    let renewals = 0;
    const slowFirst = new Proxy(db(), {
      get: (target, prop) => {
        const value = Reflect.get(target, prop);
        if (prop !== "$queryRawUnsafe") return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          if (String(args[0]).includes("Lease") && renewals++ === 1) await new Promise((r) => setTimeout(r, 400));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as ReturnType<typeof db>;
    const o = { db: slowFirst, name: "late-renewal", holder: "A", ttlMs: 300, now: () => clock, log: quiet };
    await withLease(o, () => new Promise((r) => setTimeout(r, 250)));
    await new Promise((r) => setTimeout(r, 500)); // long enough for any renewal still under way
    expect(await db().lease.findUnique({ where: { name: "late-renewal" } })).toBeNull();
  });

  it("tell the work when another process took the lease over", async () => {
    let clock = T0 + 300n * SEC;
    const o = { db: db(), name: "lost", holder: "A", ttlMs: 300, now: () => clock, log: quiet };
    const aborted = await withLease(o, async (_grant, lost) => {
      clock += SEC; // A stalled past its lease: B takes it
      expect(await acquireLease(db(), "lost", "B", clock, 5_000)).toBe("taken");
      await new Promise((resolve) => lost.addEventListener("abort", resolve));
      return lost.reason as Error;
    });
    expect(aborted?.message).toBe("lease lost lost to another process");
    expect((await db().lease.findUniqueOrThrow({ where: { name: "lost" } })).holder).toBe("B"); // A's release left B's lease alone

    // B took it over, did the work and released it before A's next renewal: lost all the same
    const o2 = { ...o, name: "lost-and-freed" };
    const noticed = await withLease(o2, async (_grant, lost) => {
      clock += SEC;
      expect(await acquireLease(db(), "lost-and-freed", "B", clock, 5_000)).toBe("taken");
      await releaseLease(db(), "lost-and-freed", "B");
      await new Promise((resolve) => lost.addEventListener("abort", resolve));
      return lost.aborted;
    });
    expect(noticed).toBe(true);
    expect(await db().lease.findUnique({ where: { name: "lost-and-freed" } })).toBeNull();
  });
});

describe("claims", () => {
  async function delivery(id: string, status = "pending") {
    await db().alertDelivery.create({
      data: { id, webhookId: "w-claims", event: "interruption.created", dedupeKey: id, status, nextAttemptAtNs: T0, createdAtNs: T0, payload: "{}" },
    });
  }

  it("give a pending row to one process at a time, and to another once the claim expires", async () => {
    await delivery("d-1");
    const claims = await Promise.all(["A", "B", "C", "D"].map((h) => claimPending(db(), "AlertDelivery", "d-1", h, T0, 10_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const owner = (await db().alertDelivery.findUniqueOrThrow({ where: { id: "d-1" } })).claimedBy;
    const other = owner === "A" ? "B" : "A";
    expect(await claimPending(db(), "AlertDelivery", "d-1", other, T0 + 9n * SEC, 10_000)).toBe(false);
    expect(await claimPending(db(), "AlertDelivery", "d-1", other, T0 + 10n * SEC, 10_000)).toBe(true); // the owner died
    await releaseClaim(db(), "AlertDelivery", "d-1", owner!); // the late owner cannot give back what it lost
    expect((await db().alertDelivery.findUniqueOrThrow({ where: { id: "d-1" } })).claimedBy).toBe(other);
    await releaseClaim(db(), "AlertDelivery", "d-1", other);
    expect(await claimPending(db(), "AlertDelivery", "d-1", "E", T0 + 10n * SEC, 10_000)).toBe(true);
  });

  it("never give a row that is no longer pending", async () => {
    await delivery("d-2", "delivered");
    expect(await claimPending(db(), "AlertDelivery", "d-2", "A", T0, 10_000)).toBe(false);
  });
});

describe("the alert worker in several processes", () => {
  let clock = T0 + 10_000n * SEC;
  const now = () => clock;
  const hook = (agent: string) => ({
    name: agent, url: `http://r.invalid/${agent}`, kind: "generic" as const, min_severity: "high" as const, types: [], agents: [agent], repeat_interval_secs: 0, enabled: true,
  });
  async function crash(agent: string, id: string) {
    await db().interruption.create({
      data: { id, agentName: agent, type: "agent_crash", severity: "critical", occurredAtNs: clock, lastSeenNs: clock, detail: "{}", fingerprint: `fp-${id}`, status: "open", createdAtNs: clock },
    });
  }

  it("sends each alert once when every process ticks at once", async () => {
    const sent: string[] = [];
    const fetch = async (url: string, init: RequestInit) => {
      sent.push(String((init.headers as Record<string, string>)["X-SightDesk-Delivery"]));
      return new Response("ok");
    };
    const workers = ["A", "B", "C"].map((holder) => new AlertWorker({ db: db(), now, fetch, holder, log: quiet }));
    await createWebhook(db(), hook("Many"), "test");
    clock += SEC;
    for (let i = 0; i < 12; i++) await crash("Many", `many-${i}`);
    for (let round = 0; round < 4; round++) {
      await Promise.all(workers.map((w) => w.tick()));
      await Promise.all(workers.map((w) => w.settle()));
      clock += SEC;
    }
    expect(sent).toHaveLength(12);
    expect(new Set(sent).size).toBe(12);
    const rows = await db().alertDelivery.findMany({ where: { dedupeKey: { startsWith: "many-" } } });
    expect(rows.map((r) => [r.status, r.attempts, r.claimedBy])).toEqual(Array(12).fill(["delivered", 1, null]));
  });

  it("hands the scan and a delivery cut off mid-send to another process once their lease and claim expire", async () => {
    const sentByA: string[] = [];
    const sentByB: string[] = [];
    // A's receiver never answers: A is stuck mid-send, as a process killed there would be
    const a = new AlertWorker({ db: db(), now, holder: "A", log: quiet, timeoutMs: 5_000, fetch: (url) => (sentByA.push(url), new Promise<Response>(() => undefined)) });
    const b = new AlertWorker({ db: db(), now, holder: "B", log: quiet, timeoutMs: 5_000, fetch: async (url) => (sentByB.push(url), new Response("ok")) });
    clock += 100n * SEC; // past the leases of the test before
    await createWebhook(db(), hook("Once"), "test");
    clock += SEC;
    await crash("Once", "once-1");
    await a.tick(); // A takes the scan lease, queues the delivery, claims it and starts sending
    expect(sentByA).toHaveLength(1);
    await crash("Once", "once-2");
    clock += SEC;
    await b.tick(); // A's scan lease and claim still hold: B neither scans nor sends
    expect(sentByB).toHaveLength(0);
    expect((await db().lease.findUniqueOrThrow({ where: { name: SCAN_LEASE } })).holder).toBe("A");

    clock += 10n * SEC; // A has stopped: its lease (5 s) and its claim (timeout + 5 s) are over
    await b.tick();
    await b.settle();
    await b.tick(); // the scan of the first tick queued once-2; this one sends it
    await b.settle();
    expect(sentByB.sort()).toEqual(["http://r.invalid/Once", "http://r.invalid/Once"]);
    const rows = await db().alertDelivery.findMany({ where: { dedupeKey: { in: ["once-1", "once-2"] } } });
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([["delivered", 1], ["delivered", 1]]);
    expect((await db().lease.findUniqueOrThrow({ where: { name: SCAN_LEASE } })).holder).toBe("B");
    expect(sentByA).toHaveLength(1); // A is still stuck; nothing more went through it
  });

  // PostgreSQL: the test holds the mark's row, so that the scan waits (real seconds) while its clock moves on
  it.skipIf(!testPostgresUrl())("keeps the scan lease through a scan longer than the lease", async () => {
    const a = new AlertWorker({ db: db(), now, holder: "A5", log: quiet, fetch: async () => new Response("ok") });
    clock += 100n * SEC; // past the leases of the tests before
    await createWebhook(db(), hook("Slow"), "test");
    clock += SEC;
    await crash("Slow", "slow-1");
    await a.tick(); // takes the lease, writes the mark
    await a.settle();
    clock += SEC;
    await crash("Slow", "slow-2"); // after the mark: the next scan moves it on
    let release = () => undefined as void;
    const held = new Promise<void>((r) => (release = r));
    let locked = () => undefined as void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const holding = db().$transaction(async (tx) => {
      await tx.$queryRawUnsafe(`SELECT 1 FROM "Setting" WHERE "key" = $1 FOR UPDATE`, MARK_KEY);
      locked();
      await held;
    }, { timeout: 30_000 });
    await lockTaken;
    const ticking = a.tick(); // queues slow-2, then waits to move the mark on
    clock += 10n * SEC; // twice the lease: it would have expired mid-scan
    await new Promise((r) => setTimeout(r, 2_500)); // a renewal (every third of the 5 s lease) at the new time
    expect(await acquireLease(db(), SCAN_LEASE, "B5", clock, 5_000)).toBeNull();
    release();
    await holding;
    await ticking;
    await a.settle();
    expect((await db().lease.findUniqueOrThrow({ where: { name: SCAN_LEASE } })).holder).toBe("A5");
    expect((await db().alertDelivery.findMany({ where: { dedupeKey: "slow-2" } })).map((d) => d.status)).toEqual(["delivered"]);
    await a.shutdown();
  });

  it("hands the scan over at once when its process shuts down (SIGTERM), not when the lease expires", async () => {
    const sentByB: string[] = [];
    const a = new AlertWorker({ db: db(), now, holder: "A4", log: quiet, fetch: async () => new Response("ok") });
    const b = new AlertWorker({ db: db(), now, holder: "B4", log: quiet, fetch: async (url) => (sentByB.push(url), new Response("ok")) });
    clock += 100n * SEC; // past the leases of the tests before
    await createWebhook(db(), hook("Handover"), "test");
    clock += SEC;
    await a.tick();
    await a.settle();
    expect((await db().lease.findUniqueOrThrow({ where: { name: SCAN_LEASE } })).holder).toBe("A4");
    await crash("Handover", "handover-1");
    const ticking = a.tick(); // a tick under way when the signal comes: it finishes first
    await a.shutdown();
    await ticking;
    expect(await db().lease.findUnique({ where: { name: SCAN_LEASE } })).toBeNull();
    await a.tick(); // stopped: it takes nothing again
    expect(await db().lease.findUnique({ where: { name: SCAN_LEASE } })).toBeNull();
    clock += SEC; // well within the 5 s A's lease had left
    await b.tick();
    await b.settle();
    await b.tick();
    await b.settle();
    expect((await db().lease.findUniqueOrThrow({ where: { name: SCAN_LEASE } })).holder).toBe("B4");
    const delivered = await db().alertDelivery.findMany({ where: { dedupeKey: "handover-1" } });
    expect(delivered.map((d) => d.status)).toEqual(["delivered"]);
  });

  it("waits, when its process shuts down, for the deliveries in flight to be recorded: no other process sends them again", async () => {
    let answer: (r: Response) => void = () => undefined;
    const sentByB: string[] = [];
    const a = new AlertWorker({ db: db(), now, holder: "A5", log: quiet, fetch: () => new Promise<Response>((resolve) => (answer = resolve)) });
    const b = new AlertWorker({ db: db(), now, holder: "B5", log: quiet, fetch: async (url) => (sentByB.push(url), new Response("ok")) });
    clock += 100n * SEC; // past the leases of the tests before
    await createWebhook(db(), hook("Inflight"), "test");
    clock += SEC;
    await crash("Inflight", "inflight-1");
    await a.tick(); // queued, claimed, sending: the receiver has not answered yet
    expect(a.inFlight).toBe(1);
    let shutDown = false;
    const shutdown = a.shutdown().then(() => (shutDown = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(shutDown).toBe(false); // before, it returned here and the process exited mid-send
    answer(new Response("ok"));
    await shutdown;
    const [row] = await db().alertDelivery.findMany({ where: { dedupeKey: "inflight-1" } });
    expect([row.status, row.attempts, row.claimedBy]).toEqual(["delivered", 1, null]);
    clock += 20n * SEC; // long past the claim A held
    await b.tick();
    await b.settle();
    expect(sentByB).toEqual([]);
  });

  it("starts no delivery once its process is shutting down: the tick under way scans, another process sends", async () => {
    const sentByA: string[] = [];
    const sentByB: string[] = [];
    const a = new AlertWorker({ db: db(), now, holder: "A7", log: quiet, fetch: async (url) => (sentByA.push(url), new Response("ok")) });
    const b = new AlertWorker({ db: db(), now, holder: "B7", log: quiet, fetch: async (url) => (sentByB.push(url), new Response("ok")) });
    clock += 100n * SEC; // past the leases of the tests before
    await createWebhook(db(), hook("Stopping"), "test");
    clock += SEC;
    await crash("Stopping", "stopping-1");
    const ticking = a.tick(); // it scans and queues the alert
    await a.shutdown(); // the signal comes while the tick runs
    await ticking;
    // before, the tick went on to claim and send it: cut off by the exit, it would be sent twice
    expect(sentByA).toEqual([]);
    clock += SEC;
    await b.tick();
    await b.settle();
    expect(sentByB).toEqual(["http://r.invalid/Stopping"]);
  });

  it("a row dated ahead by another process's fast clock does not hide the rows that come after it", async () => {
    const sent: string[] = [];
    const a = new AlertWorker({ db: db(), now, holder: "A3", log: quiet, fetch: async (url, init) => (sent.push(JSON.parse(String(init.body)).interruption.interruption_id), new Response("ok")) });
    clock += 100n * SEC;
    await createWebhook(db(), hook("Skew"), "test");
    clock += SEC;
    const at = clock;
    clock += 60n * SEC; // the process that ingests the next row runs a minute fast
    await crash("Skew", "skew-future");
    clock = at + SEC;
    await a.tick();
    await a.settle();
    await crash("Skew", "skew-now"); // ingested by a process whose clock is right
    clock += SEC;
    await a.tick();
    await a.settle();
    await a.tick();
    await a.settle();
    expect(sent.sort()).toEqual(["skew-future", "skew-now"]);
  });

  it("does not send again a delivery it still has in flight, even once its claim is over", async () => {
    const sent: string[] = [];
    // the attempt outlives its timeout (as one stuck in a DNS lookup did, which no signal stopped)
    const a = new AlertWorker({ db: db(), now, holder: "A2", log: quiet, timeoutMs: 5_000, fetch: (url) => (sent.push(url), new Promise<Response>(() => undefined)) });
    clock += 100n * SEC; // past the leases of the tests before
    await createWebhook(db(), hook("Stuck"), "test");
    clock += SEC;
    await crash("Stuck", "stuck-1");
    await a.tick();
    expect(sent).toHaveLength(1);
    clock += 11n * SEC; // the claim (timeout + 5 s) is over; the attempt is not
    await a.tick();
    expect(sent).toHaveLength(1);
    expect(a.inFlight).toBe(1);
  });
});

describe("sweeps in several processes", () => {
  const config = { ...configDefaults(), checkIntervalSecs: 60 };
  const INTERVAL = 60n * SEC;

  it("run once per interval, whichever process ticks", async () => {
    let clock = T0 + 50_000n * SEC;
    const now = () => clock;
    const sweepers = ["A", "B", "C"].map((holder) => new Sweeper({ db: db(), config, now, holder, log: quiet }));
    const ran: string[] = [];
    for (let step = 0; step < 12; step++) {
      const results = await Promise.all(sweepers.map((s) => s.tick()));
      results.forEach((r, i) => r && ran.push(["A", "B", "C"][i]));
      clock += 20n * SEC; // three looks per interval
    }
    expect(ran).toHaveLength(4); // at 0, 60, 120 and 180 s
    const runs = await db().sweepRun.findMany({ where: { startedAtNs: { gte: T0 + 50_000n * SEC } }, orderBy: { startedAtNs: "asc" } });
    expect(runs.map((r) => r.status)).toEqual(["done", "done", "done", "done"]);
    expect(runs.map((r) => r.holder)).toEqual(ran);
    for (let i = 1; i < runs.length; i++) expect(runs[i].startedAtNs - runs[i - 1].startedAtNs).toBeGreaterThanOrEqual(INTERVAL);
    expect(JSON.parse(runs[0].result!)).toMatchObject({ unsettledTurns: 0, retention: { interruptions: 0 } });
  });

  it("are not held off by a run or a lease dated ahead by a process whose clock ran fast", async () => {
    const start = T0 + 40_000n * SEC; // before the other tests' times: its runs are not among theirs
    // a process an hour ahead swept and took the lease, then died (or had its clock set right)
    await db().sweepRun.create({ data: { id: "fast-run", holder: "fast", startedAtNs: start + 3_600n * SEC, finishedAtNs: start + 3_601n * SEC, status: "done", result: "{}" } });
    expect(await acquireLease(db(), SWEEP_LEASE, "fast", start + 3_600n * SEC, leaseMs(config.checkIntervalSecs))).toBe("taken");
    let clock = start + 10n * SEC;
    const right = new Sweeper({ db: db(), config, now: () => clock, holder: "right", log: quiet });
    // before: no sweep for the hour (the run looked recent, the lease held); now the lease, unchanged
    // for a lease length (its holder renews it no more), is taken over
    expect(await right.tick()).toBeNull();
    clock += BigInt(leaseMs(config.checkIntervalSecs)) * 1_000_000n;
    expect(await right.tick()).not.toBeNull();
    expect(await acquireLease(db(), "alerts-fast", "fast", start + 3_600n * SEC, 5_000)).toBe("taken");
    expect(await acquireLease(db(), "alerts-fast", "right", start + 10n * SEC, 5_000)).toBeNull();
    expect(await acquireLease(db(), "alerts-fast", "right", start + 15n * SEC, 5_000)).toBe("taken");
    // a holder still running fast renews its lease: it keeps it (the two do not take it in turns)
    expect(await acquireLease(db(), "alerts-live", "fast", start + 3_600n * SEC, 5_000)).toBe("taken");
    expect(await acquireLease(db(), "alerts-live", "right", start + 10n * SEC, 5_000)).toBeNull();
    expect(await acquireLease(db(), "alerts-live", "fast", start + 3_602n * SEC, 5_000)).toBe("renewed");
    expect(await acquireLease(db(), "alerts-live", "right", start + 16n * SEC, 5_000)).toBeNull();
    expect(await acquireLease(db(), "alerts-live", "fast", start + 3_604n * SEC, 5_000)).toBe("renewed");
    expect(await acquireLease(db(), "alerts-live", "right", start + 22n * SEC, 5_000)).toBeNull();
    // a lease renewed by a clock a little ahead still holds
    expect(await acquireLease(db(), "alerts-near", "near", start + 10n * SEC + 2n * SEC, 5_000)).toBe("taken");
    expect(await acquireLease(db(), "alerts-near", "right", start + 10n * SEC, 5_000)).toBeNull();
    await db().sweepRun.deleteMany({ where: { holder: "fast" } });
  });

  it("take over from a process that died mid-sweep within one interval, and log its run as abandoned", async () => {
    const start = T0 + 60_000n * SEC;
    let clock = start;
    // process "dead" took the lease and started a sweep, then was killed: its lease is not renewed
    expect(await acquireLease(db(), SWEEP_LEASE, "dead", start, leaseMs(config.checkIntervalSecs))).toBe("taken");
    await db().sweepRun.create({ data: { id: "dead-run", holder: "dead", startedAtNs: start, status: "running" } });
    const survivor = new Sweeper({ db: db(), config, now: () => clock, holder: "B", log: quiet });
    clock = start + 30n * SEC;
    expect(await survivor.tick()).toBeNull(); // the dead process's sweep is not due again yet
    clock = start + INTERVAL;
    expect(await survivor.tick()).not.toBeNull();
    const runs = await db().sweepRun.findMany({ where: { startedAtNs: { gte: start } }, orderBy: { startedAtNs: "asc" } });
    expect(runs.map((r) => [r.holder, r.status])).toEqual([["dead", "abandoned"], ["B", "done"]]);
    expect(await db().lease.findUnique({ where: { name: SWEEP_LEASE } })).toBeNull(); // released after the run
  });
});
