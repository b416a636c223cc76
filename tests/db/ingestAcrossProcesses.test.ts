// Ingest with several server processes on one PostgreSQL (transactions on separate connections,
// as processes have them). PostgreSQL only: a SQLite transaction holds the write lock from its
// start, so nothing can happen between its reads and its writes.
// - Interruptions of an ingest transaction that waited after detecting them (a row another
//   process's transaction holds) are stamped again before it commits: the alert worker finds new
//   interruptions by createdAtNs, 10 s behind the newest it has seen, and would never see rows
//   committed with an older stamp.
// - Two copies of one call sent at once are stored once, whatever keys each copy derives.
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { MAX_NS, nowNs } from "@/lib/domain/time";
import { listInterruptions, readListPage } from "@/lib/db/queries/interruptions";
import { flagUnsettledTurns } from "@/lib/sweeps/sweep";
import { ingestCalls } from "@/lib/ingest/storeCalls";
import { ingestEvents } from "@/lib/ingest/storeEvents";
import { callSchema } from "@/lib/ingest/schema";
import { snoozeFingerprint } from "@/lib/triage/snooze";
import { configDefaults } from "@/lib/config/load";
import { createTestDatabase, testPostgresUrl, type TestDatabase } from "../support/database";

const detection = configDefaults().detection;
const T = BigInt(Date.now() - 60_000) * 1_000_000n;
let database: TestDatabase | undefined;
let db: Db | undefined;
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});
async function open(): Promise<Db> {
  database ??= await createTestDatabase("across-processes");
  return (db ??= createDb(database.url));
}

/**
 * Runs `work` while another connection's transaction holds what `lock` locks; lets it go after
 * `ms`, and not before the work waits on a lock (a busy machine may take longer to get there:
 * let go earlier, the test would pass without the race it is about); the time it let go.
 */
async function whileHeld(lock: string, ms: number, work: () => Promise<void>): Promise<bigint> {
  const holder = new pg.Client({ connectionString: database!.url });
  await holder.connect();
  try {
    await holder.query(`BEGIN; ${lock}`);
    const done = work();
    const since = Date.now();
    await new Promise((r) => setTimeout(r, ms));
    const waiting = async () =>
      Number((await holder.query(`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`)).rows[0].n) > 0;
    while (!(await waiting())) {
      if (Date.now() - since > 15_000) throw new Error("the work never waited on the held lock");
      await new Promise((r) => setTimeout(r, 20));
    }
    const releasedAt = nowNs();
    await holder.query("COMMIT");
    await done;
    return releasedAt;
  } finally {
    await holder.end();
  }
}

const failing = (id: string, session: string) =>
  callSchema.parse({
    call_id: id, session_id: session, agent_name: "late", pid: 7, start_ns: String(T), end_ns: String(T + 1_000_000n),
    status_code: 500, error: "upstream exploded", input_messages: [{ role: "user", parts: [{ type: "text", content: "hi" }] }],
  });

describe("ingest across processes", () => {
  // (a wait under a second: before, only a transaction that ran over a second was stamped again)
  it.skipIf(!testPostgresUrl()).each([1_500, 700])("stamps the interruptions of a transaction that waited (%i ms) when it commits, not when they were detected", async (waitMs) => {
    const db = await open();
    const [second, exit] = [`s-second-${waitMs}`, `s-exit-${waitMs}`];
    await ingestCalls(db, [failing(`first-${waitMs}`, `s-first-${waitMs}`)], detection); // the agent's arrival row exists
    // another transaction holds the row every batch of this agent updates last
    const releasedAt = await whileHeld(`SELECT 1 FROM "IngestSource" WHERE "source" = 'api' AND "agentName" = 'late' FOR UPDATE`, waitMs, async () => {
      const [calls, events] = await Promise.all([
        ingestCalls(db, [failing(`second-${waitMs}`, second)], detection),
        ingestEvents(db, [{ kind: "process_exit", session_id: exit, agent_name: "late", pid: 8, exit_code: 1, at_ns: T }], detection),
      ]);
      expect([calls.interruptions, events.interruptions]).toEqual([1, 1]);
    });
    const rows = await db.interruption.findMany({ where: { sessionId: { in: [second, exit] } }, select: { id: true, type: true, createdAtNs: true } });
    expect(rows.map((r) => r.type).sort()).toEqual(["agent_crash", "llm_error"]);
    const doneAt = nowNs();
    // before, both kept the stamp of their detection, the wait before they could commit; now it is
    // their commit, near enough (the transaction's start is read just before its BEGIN reaches the
    // database: a busy machine puts it a little early), and not later
    const near = 300_000_000n;
    for (const r of rows) expect([r.type, r.createdAtNs >= releasedAt - near, r.createdAtNs <= doneAt + 100_000_000n]).toEqual([r.type, true, true]);
  }, 30_000);

  it.skipIf(!testPostgresUrl())("stamps a transaction that waited before detecting (a session another process stores) with its commit, not later", async () => {
    const db = await open();
    // another process is storing this session: its key is held, so this batch waits first, then detects
    await whileHeld(`SELECT pg_advisory_xact_lock(hashtextextended('s-waited', 0))`, 1_500, async () => {
      expect((await ingestCalls(db, [failing("waited", "s-waited")], detection)).interruptions).toBe(1);
    });
    const doneAt = nowNs();
    const row = await db.interruption.findFirstOrThrow({ where: { sessionId: "s-waited" }, select: { createdAtNs: true } });
    expect(row.createdAtNs).toBeLessThanOrEqual(doneAt); // before, the wait counted twice: 1.5 s in the future
  }, 30_000);

  it.skipIf(!testPostgresUrl())("stamps with the database's clock: what a process whose clock runs behind stores arrives after what was listed before", async () => {
    const db = await open();
    await ingestCalls(db, [failing("clock-right", "s-clock-right")], detection);
    const window = { startNs: 0n, endNs: MAX_NS };
    const { arrivedThroughNs } = await readListPage(db, window, { limit: 1 });
    // this process's clock runs a minute behind the other processes' and the database's
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() - 60_000, shouldAdvanceTime: true });
    try {
      await ingestCalls(db, [failing("clock-behind", "s-clock-behind")], detection);
      await ingestEvents(db, [
        { kind: "process_exit", session_id: "s-clock-behind-exit", agent_name: "late", pid: 9, exit_code: 1, at_ns: T },
        { kind: "turn_end", session_id: "s-clock-behind", turn_id: "t-clock-ended", reason: "completed", at_ns: T }, // the session reports its turns' ends
      ], detection);
      // the sweep (an hour on, as this process sees it) finds the call's turn unsettled
      const sweep = { detection, retentionDays: 3650, activityRetentionDays: 3650, maxDbSizeMb: 100_000, staleTurnMinutes: 30, checkIntervalSecs: 60 };
      expect(await flagUnsettledTurns(db, sweep, nowNs() + 3_600_000_000_000n)).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
    }
    // before, they were stamped a minute before the cursor: the banner never announced them, and
    // the alert scan (which reads 10 s behind the newest stamp it saw) never saw them
    const arrived = await listInterruptions(db, { ...window, arrivedAfterNs: arrivedThroughNs! }, { limit: 100 });
    const bySession = (id: string) => arrived.filter((r) => r.sessionId === id).map((r) => r.type).sort();
    expect([bySession("s-clock-behind"), bySession("s-clock-behind-exit")]).toEqual([["llm_error", "state_machine_error"], ["agent_crash"]]);
  }, 30_000);

  it.skipIf(!testPostgresUrl())("stores two copies of one call sent at once once, though each names another session", async () => {
    const db = await open();
    await ingestCalls(db, [failing("warm-up", "s-warm")], detection); // the agent's row exists
    const copy = failing("sent-twice", "s-named");
    const { session_id: _named, ...derived } = copy; // the retry let the session be derived (agent + pid)
    let results: { accepted: number; duplicates: number }[] = [];
    // both copies sent while neither can commit (the agent's row, written last, is held)
    await whileHeld(`SELECT 1 FROM "Agent" WHERE "name" = 'late' FOR UPDATE`, 500, async () => {
      results = await Promise.all([ingestCalls(db, [copy], detection), ingestCalls(db, [{ ...derived, session_id: null }], detection)]);
    });
    // before, both were accepted: the call counted twice in two sessions, its interruption stored twice
    expect(results.map((r) => r.accepted).sort()).toEqual([0, 1]);
    expect(await db.interruption.count({ where: { callId: "sent-twice" } })).toBe(1);
  }, 30_000);
});

describe("a grouped interruption resolved while a batch adds evidence to it", () => {
  /**
   * Five failures in a row of conversation `name` (a retry storm), optionally snoozed; then a
   * teammate resolves the storm (another process) in a transaction that holds `held` until a
   * sixth failure's batch has read the storm as open; the storms of the conversation, oldest first.
   */
  async function resolvedUnderABatch(name: string, held: "session" | "snooze", snoozeUntil?: number) {
    const db = await open();
    const inStorm = (n: number) => ({ ...failing(`${name}-${n}`, `s-${name}`), conversation_id: `c-${name}`, start_ns: T + BigInt(n) * 1_000_000_000n });
    await ingestCalls(db, [1, 2, 3, 4, 5].map(inStorm), detection);
    const storm = await db.interruption.findFirstOrThrow({ where: { conversationId: `c-${name}`, type: "retry_storm" } });
    const snooze = snoozeUntil ? await snoozeFingerprint(db, storm.fingerprint, { untilNs: null, untilOccurrences: snoozeUntil, untilEscalates: false, reason: null, actor: "ana" }) : null;
    // the session's row: the batch waits before it reads the storm's status; the snooze's row: after
    const hold = held === "session" ? `SELECT 1 FROM "Session" WHERE "id" = 's-${name}' FOR UPDATE` : `SELECT 1 FROM "Snooze" WHERE "id" = '${snooze!.id}' FOR UPDATE`;
    await whileHeld(
      `${hold}; UPDATE "Interruption" SET "status" = 'resolved', "snoozeId" = NULL, "resolvedBy" = 'ana', "resolvedAtNs" = ${nowNs()} WHERE "id" = '${storm.id}'`,
      500,
      async () => void (await ingestCalls(db, [inStorm(6)], detection)),
    );
    const storms = await db.interruption.findMany({ where: { conversationId: `c-${name}`, type: "retry_storm" }, orderBy: { occurredAtNs: "asc" } });
    return { db, storm, snooze, storms, inStorm };
  }
  const shape = (rows: { status: string; occurrences: number; callId: string | null }[]) => rows.map((r) => [r.status, r.occurrences, r.callId]);

  it.skipIf(!testPostgresUrl())("keeps what it had, and the batch's evidence opens a new one (it fires again)", async () => {
    const { db, storm, storms, inStorm } = await resolvedUnderABatch("storm", "session");
    // before, the resolved one absorbed the sixth failure, and nothing fired again
    expect(shape(storms)).toEqual([["resolved", 1, "storm-5"], ["open", 1, "storm-6"]]);
    expect(storms[1].fingerprint).toBe(storm.fingerprint);
    // the next failure adds to the new one
    await ingestCalls(db, [inStorm(7)], detection);
    expect(await db.interruption.findUniqueOrThrow({ where: { id: storms[1].id }, select: { occurrences: true } })).toEqual({ occurrences: 2 });
  }, 30_000);

  it.skipIf(!testPostgresUrl())("counts the batch's evidence once toward a snooze of the group: as the successor's arrival, not also as a repeat", async () => {
    const { db, snooze, storms } = await resolvedUnderABatch("snoozed-storm", "session", 5);
    // one occurrence of the group arrived (the successor); before, it counted twice
    expect(await db.snooze.findUniqueOrThrow({ where: { id: snooze!.id }, select: { occurrences: true } })).toEqual({ occurrences: 1 });
    expect([storms[1].status, storms[1].snoozeId]).toEqual(["snoozed", snooze!.id]);
  }, 30_000);

  it.skipIf(!testPostgresUrl())("opens the successor too when the group is resolved after the batch read its status, before it updates it", async () => {
    const { db, snooze, storms } = await resolvedUnderABatch("late-storm", "snooze", 50);
    expect(shape(storms)).toEqual([["resolved", 1, "late-storm-5"], ["snoozed", 1, "late-storm-6"]]);
    // counted once toward the snooze: as a repeat when the batch counted, not again as the successor's arrival
    expect(await db.snooze.findUniqueOrThrow({ where: { id: snooze!.id }, select: { occurrences: true } })).toEqual({ occurrences: 1 });
  }, 30_000);
});

describe("a batch that would lock more keys than PostgreSQL's lock table holds", () => {
  // The test cluster's lock table holds 64 locks per connection, 300 connections (some 40,000
  // locks in all); a batch of 30,000 calls in as many sessions, a few MiB, names 60,000 session
  // and conversation keys.
  const ok = (id: string, session: string) =>
    callSchema.parse({
      call_id: id, session_id: session, agent_name: "wide", pid: 9, start_ns: String(T), end_ns: String(T + 1_000_000n),
      status_code: 200, input_messages: [{ role: "user", parts: [{ type: "text", content: "hi" }] }],
    });

  it.skipIf(!testPostgresUrl())("is stored, and a small batch sent meanwhile is stored too", async () => {
    const db = await open();
    const wide = Array.from({ length: 30_000 }, (_, i) => ok(`wide-${i}`, `s-wide-${i}`));
    // before, both failed: "out of shared memory" (the lock table full)
    const [big, small] = await Promise.all([ingestCalls(db, wide, detection), ingestCalls(db, [failing("beside", "s-beside")], detection)]);
    expect([big.accepted, small.accepted]).toEqual([30_000, 1]);
    expect(await db.call.count({ where: { agentName: "wide" } })).toBe(30_000);
  }, 120_000);

  it.skipIf(!testPostgresUrl())("is stored when other transactions fill the lock table, by running again under the one key for all", async () => {
    const db = await open();
    // another connection (other processes' transactions) holds all of the lock table but some 100 locks
    const holder = new pg.Client({ connectionString: database!.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      let next = 1;
      let saved = 0; // savepoint n is set before the n-th chunk taken
      for (const chunk of [1_000, 100]) {
        for (;;) {
          await holder.query(`SAVEPOINT s${++saved}`);
          try {
            await holder.query(`SELECT COUNT(pg_advisory_xact_lock(-i)) FROM generate_series(${next}, ${next + chunk - 1}) AS i`);
            next += chunk;
          } catch {
            await holder.query(`ROLLBACK TO SAVEPOINT s${saved--}`); // the failed chunk's locks are let go
            break;
          }
        }
      }
      await holder.query(`ROLLBACK TO SAVEPOINT s${saved}`); // the last chunk of 100 too: 100–200 left
      const batch = Array.from({ length: 300 }, (_, i) => ok(`crowded-${i}`, `s-crowded-${i}`)); // 900 keys (session, conversation, call): fewer than MAX_KEYS
      // before, "out of shared memory"
      expect((await ingestCalls(db, batch, detection)).accepted).toBe(300);
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      await holder.end();
    }
  }, 120_000);
});
