// The sweep on a real database (SQLite, or PostgreSQL with TEST_DATABASE_URL), with a clock the test controls: retention by age, the size
// cap (resolved first, then oldest, space reclaimed — on PostgreSQL without rewriting a table) and unsettled turns (SPEC §3.5).
import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { configDefaults } from "@/lib/config/load";
import { createDb, type Db } from "@/lib/db/client";
import { waitingAdvisoryLocks, waitingRowLocks } from "../support/advisoryLocks";
import { eventually } from "../support/waitFor";
import { createTestDatabase, testPostgresUrl } from "../support/database";
import { blobLockKey, interruptionId, turnRowId } from "@/lib/ingest/keys";
import { ingestCalls } from "@/lib/ingest/storeCalls";
import { ingestEvents } from "@/lib/ingest/storeEvents";
import type { ChatMessage, NormalizedCall } from "@/lib/domain/calls";
import { Sweeper } from "@/lib/sweeps/scheduler";
import { foldOpenCounts } from "@/lib/db/openCounts";
import { dialectOf, lockKeys, sqlTransaction, type Sql } from "@/lib/db/sql";
import { boundWal, storageMeter } from "@/lib/sweeps/storage";
import { deleteBatch } from "@/lib/sweeps/batches";
import { BATCH, deleteOlderThan, MESSAGES_PER_TRANSACTION, nextCutoff, runSweep, type SweepConfig, type SweepResult } from "@/lib/sweeps/sweep";

const SEC = 1_000_000_000n;
const MIN = 60n * SEC;
const DAY = 86_400n * SEC;
const T = 1_800_000_000n * SEC;
const MB = 1024 * 1024;

const open: Db[] = [];
const drops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const db of open) await db.$disconnect();
  for (const drop of drops) await drop();
});

/** A database of the suite's kind (TEST_DATABASE_URL), dropped after the file. */
async function fresh(name: string): Promise<{ db: Db }> {
  const database = await createTestDatabase(name);
  drops.push(database.drop);
  const db = createDb(database.url);
  open.push(db);
  return { db };
}

const defaults = configDefaults();
const cfg = (over: Partial<SweepConfig> = {}): SweepConfig => ({
  detection: defaults.detection, retentionDays: 30, activityRetentionDays: 365, maxDbSizeMb: 100, staleTurnMinutes: 30, checkIntervalSecs: 60, ...over,
});

/** The file node of every SightDesk table, index and TOAST table (PostgreSQL): VACUUM FULL, CLUSTER or any rewrite gives a new one. */
async function fileNodes(db: Db): Promise<Map<string, number>> {
  const rows = await db.$queryRawUnsafe<{ name: string; node: unknown }[]>(
    `SELECT c.relname AS name, c.relfilenode AS node FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'i')
     UNION ALL SELECT 'toast of ' || c.relname, t.relfilenode FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid
      WHERE c.relnamespace = current_schema()::regnamespace`,
  );
  return new Map(rows.map((r) => [r.name, Number(r.node)]));
}

/** Plain VACUUMs run on each SightDesk table so far (PostgreSQL). */
async function vacuumCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db.$queryRawUnsafe<{ name: string; n: unknown }[]>(`SELECT relname AS name, vacuum_count AS n FROM pg_stat_user_tables WHERE schemaname = current_schema()`);
  return new Map(rows.map((r) => [r.name, Number(r.n)]));
}

const filler = () => crypto.randomBytes(3000).toString("base64"); // ~4 KB no compression (PostgreSQL's TOAST) can shrink

const user = (text: string): ChatMessage => ({ role: "user", parts: [{ type: "text", content: text }] });
const assistant = (text: string): ChatMessage => ({ role: "assistant", parts: [{ type: "text", content: text }] });

function call(id: string, o: { session: string; conv: string; turn?: string; at: bigint; status?: number; history?: ChatMessage[]; answer?: string }): NormalizedCall {
  const failed = (o.status ?? 200) >= 400;
  return {
    call_id: id, session_id: o.session, conversation_id: o.conv, turn_id: o.turn ?? null,
    agent_name: "tester", pid: 42, provider: "openai", model: "m",
    start_ns: o.at, end_ns: o.at + SEC, status_code: o.status ?? 200,
    error: failed ? "upstream exploded" : null,
    finish_reasons: failed ? [] : ["stop"],
    input_messages: o.history ?? [user(`question for ${id}`)],
    output_messages: failed ? [] : [{ ...assistant(o.answer ?? `answer to ${id}`), finish_reason: "stop" }],
  };
}

describe("retention", () => {
  it("deletes old interruptions, calls and message chains, keeps activity rows and recent data", async () => {
    const { db } = await fresh("retention");
    const old = T - 40n * DAY;
    const recent = T - DAY;
    const oldHistory = [user("old task")];
    const mixFirst = [user("long task")];
    await ingestCalls(db, [
      // an old conversation: failures (llm_error), a tool call in its history
      call("old-1", { session: "s-old", conv: "conv-old", at: old, status: 500, history: oldHistory }),
      call("old-2", {
        session: "s-old", conv: "conv-old", at: old + 10n * SEC,
        history: [...oldHistory, { role: "assistant", parts: [{ type: "tool_call", id: "tc-1", name: "bash", arguments: { cmd: "ls" } }] }, { role: "tool", parts: [{ type: "tool_call_response", id: "tc-1", response: "a.txt" }] }],
      }),
      // a conversation that started long ago and is still going: its messages are shared
      call("mix-1", { session: "s-mix", conv: "conv-mix", at: old, status: 500, history: mixFirst }),
      call("mix-2", { session: "s-mix", conv: "conv-mix", at: recent, history: [...mixFirst, assistant("working"), user("go on")] }),
      call("new-1", { session: "s-new", conv: "conv-new", at: recent, status: 500 }),
    ], defaults.detection);
    const before = await db.interruption.findMany({ select: { id: true, callId: true } });
    expect(before.map((i) => i.callId).sort()).toEqual(["mix-1", "new-1", "old-1"]);
    const oldInterruption = before.find((i) => i.callId === "old-1")!.id;
    await db.interruptionActivity.create({ data: { interruptionId: oldInterruption, actor: "alice", action: "acknowledge", atNs: old + MIN } });
    expect(await db.toolCall.count()).toBeGreaterThan(0);
    const mixMessages = await db.message.count({ where: { conversationId: "conv-mix" } });

    const result = await runSweep(db, cfg(), T);

    expect((await db.interruption.findMany({ select: { callId: true } })).map((i) => i.callId)).toEqual(["new-1"]);
    expect((await db.call.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((c) => c.id)).toEqual(["mix-2", "new-1"]);
    expect(await db.interruptionActivity.count({ where: { interruptionId: oldInterruption } })).toBe(1);
    expect(await db.message.count({ where: { conversationId: "conv-old" } })).toBe(0);
    expect(await db.conversation.findUnique({ where: { id: "conv-old" } })).toBeNull();
    expect(await db.session.findUnique({ where: { id: "s-old" } })).toBeNull();
    expect(await db.toolCall.count()).toBe(0);
    // the living conversation keeps its whole chain: the recent call's history is intact
    expect(await db.message.count({ where: { conversationId: "conv-mix" } })).toBe(mixMessages);
    const mix2 = await db.call.findUnique({ where: { id: "mix-2" } });
    expect(await db.message.findUnique({ where: { id: mix2!.inputTailId! } })).not.toBeNull();
    expect(await db.session.findUnique({ where: { id: "s-mix" } })).not.toBeNull();
    expect(result.retention).toMatchObject({ interruptions: 2, calls: 3, conversations: 1, sessions: 1 });
    expect(result.sizeCap.vacuumed).toBe(false);

    // a second sweep finds nothing more to do
    const again = await runSweep(db, cfg(), T);
    expect(Object.values(again.retention).every((v) => v === 0)).toBe(true);
  });

  it("keeps everything when the retention is longer than the clock goes back (1,000,000 days: keep forever)", async () => {
    const { db } = await fresh("retention-forever");
    await ingestCalls(db, [call("ancient-1", { session: "s-a", conv: "conv-a", at: 1n, status: 500 })], defaults.detection);
    const result = await runSweep(db, cfg({ retentionDays: 1_000_000, activityRetentionDays: 1_000_000 }), T);
    expect(Object.values(result.retention).every((v) => v === 0)).toBe(true);
    expect(await db.call.count()).toBe(1);
    expect(await db.interruption.count()).toBe(1);
  });

  it("deletes more rows than one batch holds (Prisma binds at most 999 ids per delete on SQLite)", async () => {
    const { db } = await fresh("retention-many");
    const n = 2 * BATCH + 100;
    const calls = Array.from({ length: n }, (_, i) =>
      call(`many-${i}`, { session: `s-many-${i % 7}`, conv: `conv-many-${i}`, at: T - 40n * DAY + BigInt(i) * SEC, status: 500 }));
    for (let i = 0; i < n; i += 500) await ingestCalls(db, calls.slice(i, i + 500), defaults.detection);
    expect(await db.interruption.count()).toBe(n);
    const result = await runSweep(db, cfg(), T);
    expect(result.retention).toMatchObject({ interruptions: n, calls: n, conversations: n, sessions: 7 });
    expect(await db.call.count()).toBe(0);
    expect(await db.message.count()).toBe(0);
  }, 60_000);
  it("deletes the system prompts and tool definitions no remaining call names, and keeps those a recent call still names", async () => {
    const { db } = await fresh("retention-blobs");
    const prompt = (text: string) => [{ type: "text" as const, content: text }];
    const tools = [{ type: "function", function: { name: "bash" } }];
    const old = T - 40n * DAY;
    await ingestCalls(db, [
      { ...call("b-old", { session: "s-b", conv: "conv-b1", at: old }), system_instructions: prompt("you are old (dated 40 days ago)"), tools },
      { ...call("b-shared-old", { session: "s-b", conv: "conv-b2", at: old }), system_instructions: prompt("shared prompt"), tools },
      { ...call("b-new", { session: "s-b", conv: "conv-b3", at: T - DAY }), system_instructions: prompt("shared prompt"), tools },
    ], defaults.detection);
    const blobOf = async (id: string) => (await db.call.findUniqueOrThrow({ where: { id } })).systemBlobId!;
    const [oldPrompt, sharedPrompt] = [await blobOf("b-old"), await blobOf("b-shared-old")];
    const toolsBlob = (await db.call.findUniqueOrThrow({ where: { id: "b-new" } })).toolsBlobId!;
    expect(await db.blob.count()).toBe(3);

    const result = await runSweep(db, cfg(), T);

    expect(result.retention).toMatchObject({ calls: 2, blobs: 1 });
    expect(await db.blob.findUnique({ where: { id: oldPrompt } })).toBeNull();
    expect((await db.blob.findMany({ select: { id: true } })).map((b) => b.id).sort()).toEqual([sharedPrompt, toolsBlob].sort());
    const kept = await db.call.findUniqueOrThrow({ where: { id: "b-new" } });
    expect([kept.systemBlobId, kept.toolsBlobId]).toEqual([sharedPrompt, toolsBlob]);
  });
});

/**
 * Session `s-${key}` that reports turn ends: turn `t-${key}-first` ended, then `t-${key}-slow`,
 * one call at t0 + 1 min and no end yet (stale 30 min later).
 */
async function sessionWithSlowTurn(db: Db, key: string, t0: bigint): Promise<void> {
  const [session, conv] = [`s-${key}`, `conv-${key}`];
  await ingestCalls(db, [
    call(`${key}-1`, { session, conv, turn: `t-${key}-first`, at: t0, history: [user("first")] }),
    call(`${key}-2`, { session, conv, turn: `t-${key}-slow`, at: t0 + MIN, history: [user("first"), assistant("answer"), user("second")] }),
  ], defaults.detection);
  await ingestEvents(db, [{ kind: "turn_end", session_id: session, conversation_id: conv, turn_id: `t-${key}-first`, reason: "completed", at_ns: t0 + 30n * SEC }], defaults.detection);
}

/**
 * A sweep at T run while an ingest-like transaction holds its locks (`lock`) and has not written
 * yet (`write`, run once the sweep is seen waiting on an advisory lock): the sweep's result.
 */
async function sweepBesideIngest(db: Db, what: string, lock: (sql: Sql) => Promise<void>, write: (sql: Sql) => Promise<void>): Promise<SweepResult> {
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  let locked = () => {};
  const ingestLocked = new Promise<void>((r) => (locked = r));
  const ingest = sqlTransaction(db, async (sql) => {
    await lock(sql);
    locked();
    await held;
    await write(sql);
  });
  await ingestLocked;
  const sweep = runSweep(db, cfg(), T);
  try {
    await eventually(`the sweep to wait for ${what} (advisory locks waited for)`, () => waitingAdvisoryLocks(db), (n) => n === 1, { timeoutMs: 10_000, everyMs: 20 });
  } finally {
    release();
  }
  await ingest;
  return sweep;
}

describe.runIf(testPostgresUrl())("retention beside ingest in another process (PostgreSQL)", () => {
  it("waits for an ingest holding the conversation; the conversation it moved past the cutoff keeps every message", async () => {
    const { db } = await fresh("retention-ingest");
    await ingestCalls(db, [call("race-1", { session: "s-race", conv: "conv-race", at: T - 40n * DAY })], defaults.detection);
    const messages = await db.message.count({ where: { conversationId: "conv-race" } });
    expect(messages).toBeGreaterThan(0);
    // an ingest transaction of the conversation, between reading its messages and writing its call
    const result = await sweepBesideIngest(
      db,
      "the conversation's lock",
      (sql) => lockKeys(sql, ["s-race", "conv-race"]),
      (sql) => sql.run(`UPDATE "Conversation" SET "lastSeenNs" = ? WHERE "id" = ?`, [T, "conv-race"]),
    );
    expect(result.retention).toMatchObject({ calls: 1, messages: 0, conversations: 0 });
    expect(await db.message.count({ where: { conversationId: "conv-race" } })).toBe(messages);
    expect(await db.conversation.findUnique({ where: { id: "conv-race" } })).not.toBeNull();
  });

  it("judges a stale turn after an event ingest holding its session: the turn that ingest ended is not flagged", async () => {
    const { db } = await fresh("unsettled-beside-events");
    await sessionWithSlowTurn(db, "ev", T - 60n * MIN); // stale at T (the sweep below)
    // an event batch of the session (ingestPreparedEvents holds its key), about to end the stale turn
    const result = await sweepBesideIngest(
      db,
      "the session's lock",
      (sql) => lockKeys(sql, ["s-ev"]),
      (sql) => sql.run(`UPDATE "Turn" SET "endReason" = 'completed', "endedAtNs" = ? WHERE "label" = ?`, [T, "t-ev-slow"]),
    );
    expect(result.unsettledTurns).toBe(0);
    expect(await db.interruption.findUnique({ where: { id: interruptionId("unsettled_turn", turnRowId("s-ev", "t-ev-slow")) } })).toBeNull();
  });

  it("keeps a blob an ingest holding its key is about to name: the sweep waits for it", async () => {
    const { db } = await fresh("retention-blob-ingest");
    const system = [{ type: "text" as const, content: "a prompt about to be named again" }];
    await ingestCalls(db, [{ ...call("blob-race-1", { session: "s-br", conv: "conv-br", at: T - 40n * DAY }), system_instructions: system }], defaults.detection);
    const blobId = (await db.call.findUniqueOrThrow({ where: { id: "blob-race-1" } })).systemBlobId!;
    // an ingest transaction that holds the blob's key (shared, as storeCalls does) and names it from a new call
    const result = await sweepBesideIngest(
      db,
      "the blob's lock",
      async (sql) => {
        await lockKeys(sql, [], [blobLockKey(blobId)]);
        // another ingest naming the same prompt does not wait for this one
        await ingestCalls(db, [{ ...call("blob-race-3", { session: "s-br2", conv: "conv-br2", at: T - 40n * DAY }), system_instructions: system }], defaults.detection);
      },
      (sql) => sql.run(`INSERT INTO "Call" ("id", "startNs", "systemBlobId", "cancelled", "inputCount", "outputCount") VALUES (?, ?, ?, false, 0, 0)`, ["blob-race-2", T, blobId]),
    );
    expect(result.retention).toMatchObject({ calls: 2, blobs: 0 });
    expect(await db.blob.findUnique({ where: { id: blobId } })).not.toBeNull();
  });
});

describe.runIf(testPostgresUrl())("batched deletes beside a write to the same rows (PostgreSQL)", () => {
  it("keeps a resolved interruption reopened while the delete waited for it: the condition is judged on the row as committed", async () => {
    const { db } = await fresh("delete-recheck");
    await ingestCalls(db, [call("recheck-1", { session: "s-rc", conv: "conv-rc", at: T - DAY, status: 500 })], defaults.detection);
    const [{ id }] = await db.interruption.findMany({ select: { id: true } });
    await db.interruption.update({ where: { id }, data: { status: "resolved" } });
    let reopened = () => {};
    const reopen = new Promise<void>((r) => (reopened = r));
    let locked = () => {};
    const rowLocked = new Promise<void>((r) => (locked = r));
    // a reopen holding the row, committed once the delete waits for it
    const writer = sqlTransaction(db, async (sql) => {
      // a read, not a run: sent (and the row locked) before it resolves
      await sql.all(`UPDATE "Interruption" SET "status" = 'open' WHERE "id" = ? RETURNING "id"`, [id]);
      locked();
      await reopen;
    });
    await rowLocked;
    const deleted = deleteBatch(db, "Interruption", `"status" = 'resolved'`, [], `"occurredAtNs"`);
    try {
      await eventually("the delete to wait for the row", () => waitingRowLocks(db), (n) => n >= 1, { timeoutMs: 10_000, everyMs: 20 });
    } finally {
      reopened();
    }
    await writer;
    expect(await deleted).toBe(0);
    expect(await db.interruption.findUnique({ where: { id }, select: { status: true } })).toEqual({ status: "open" });
  });
});

describe("retention of a long conversation", () => {
  /** A conversation last seen at `at` holding a chain of `length` messages and a branch off its middle. */
  async function longConversation(db: Db, id: string, length: number, at: bigint): Promise<void> {
    await db.conversation.create({ data: { id, sessionId: null, firstSeenNs: at, lastSeenNs: at, callCount: length } });
    const rows = Array.from({ length }, (_, i) => ({ id: `${id}-m${i}`, parentId: i ? `${id}-m${i - 1}` : null, seq: i, role: "user", parts: "[]", conversationId: id }));
    const branch = length >> 1;
    rows.push({ id: `${id}-b${branch}`, parentId: `${id}-m${branch - 1}`, seq: branch, role: "user", parts: "[]", conversationId: id });
    for (let i = 0; i < rows.length; i += 2_000) await db.message.createMany({ data: rows.slice(i, i + 2_000) });
  }

  it("deletes a conversation of more messages than a transaction takes, whole, beside small ones", async () => {
    const { db } = await fresh("retention-long");
    const old = T - 40n * DAY;
    await longConversation(db, "conv-long", 2 * MESSAGES_PER_TRANSACTION + 7, old);
    await longConversation(db, "conv-short", 20, old);
    await longConversation(db, "conv-live", 30, T - DAY);
    const counts = await deleteOlderThan(db, T - 30n * DAY);
    expect(counts).toMatchObject({ conversations: 2, messages: 2 * MESSAGES_PER_TRANSACTION + 8 + 21 });
    expect(await db.message.count({ where: { conversationId: { in: ["conv-long", "conv-short"] } } })).toBe(0);
    expect((await db.conversation.findMany({ select: { id: true } })).map((c) => c.id)).toEqual(["conv-live"]);
    expect(await db.message.count({ where: { conversationId: "conv-live" } })).toBe(31);
  });

  it("runs every step when one fails, then fails the sweep with its error", async () => {
    const { db } = await fresh("retention-step-fails");
    await longConversation(db, "conv-kept", 5, T - 40n * DAY);
    // deleting messages fails (as a transaction past its timeout would): retention fails
    if (dialectOf(db) === "sqlite") {
      await db.$executeRawUnsafe(`CREATE TRIGGER "messages_kept" BEFORE DELETE ON "Message" BEGIN SELECT RAISE(ABORT, 'messages are kept'); END`);
    } else {
      await db.$executeRawUnsafe(`CREATE FUNCTION "messages_kept"() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'messages are kept'; END $$ LANGUAGE plpgsql`);
      await db.$executeRawUnsafe(`CREATE TRIGGER "messages_kept" BEFORE DELETE ON "Message" FOR EACH ROW EXECUTE FUNCTION "messages_kept"()`);
    }
    // a later step's work: a snooze of chosen interruptions that holds none is ended by the wake-ups
    await db.snooze.create({ data: { id: "sn-empty", scope: "interruptions", actor: "alice", createdAtNs: T - DAY } });
    await expect(runSweep(db, cfg(), T)).rejects.toThrow(/messages are kept/);
    expect(await db.snooze.findUniqueOrThrow({ where: { id: "sn-empty" } })).toMatchObject({ endedAtNs: T, endReason: "nothing left snoozed" });
    expect(await db.message.count()).toBe(6);
  });
});

describe("size cap", () => {
  it("trims resolved interruptions first, then the oldest data, and the database shrinks under the cap", async () => {
    const { db } = await fresh("sizecap");
    const meter = (await storageMeter(db))!;
    const N = 600;
    for (let b = 0; b < N; b += 100) {
      const batch: NormalizedCall[] = [];
      for (let i = b; i < b + 100; i++) {
        // every third call fails: an interruption per failure
        batch.push(call(`c-${String(i).padStart(4, "0")}`, {
          session: `s-${Math.floor(i / 50)}`, conv: `conv-${i}`, at: T - BigInt(N - i) * MIN,
          status: i % 3 === 0 ? 500 : 200, history: [user(filler())], answer: filler(),
        }));
      }
      await ingestCalls(db, batch, defaults.detection);
    }
    const total = await db.interruption.count();
    expect(total).toBe(N / 3);
    // resolve 20 of the newest interruptions (all but the 10 newest): they go before older open ones
    const newest = await db.interruption.findMany({ orderBy: { occurredAtNs: "desc" }, skip: 10, take: 20, select: { id: true } });
    await db.interruption.updateMany({ where: { id: { in: newest.map((i) => i.id) } }, data: { status: "resolved", resolvedBy: "alice", resolvedAtNs: T } });
    await db.interruptionActivity.create({ data: { interruptionId: newest[0].id, actor: "alice", action: "resolve", atNs: T } });
    await foldOpenCounts(db); // a sweep's first step: the size it then finds is this one
    const sizeBefore = await meter.bytes();
    expect(sizeBefore).toBeGreaterThan(3 * MB);
    const postgres = dialectOf(db) === "postgres";
    const nodesBefore = postgres ? await fileNodes(db) : null;
    const vacuumsBefore = postgres ? await vacuumCounts(db) : null;

    const result = await runSweep(db, cfg({ maxDbSizeMb: 2 }), T);

    if (postgres) {
      // no table, index or TOAST table was rewritten (VACUUM FULL would have given them new files) …
      expect(await fileNodes(db)).toEqual(nodesBefore);
      // … the trimmed ones had a plain VACUUM, which made their free space count as free
      const vacuums = await vacuumCounts(db);
      for (const table of ["Call", "Message", "Interruption", "Conversation"]) expect(vacuums.get(table), table).toBeGreaterThan(vacuumsBefore!.get(table)!);
    }
    // PostgreSQL: statistics of the last inserts may arrive in between; SQLite: the sweep marked
    // the stale turns judged (a WAL write) before measuring
    if (postgres) expect(result.sizeCap.bytesBefore).toBeGreaterThan(2 * MB);
    else expect(result.sizeCap.bytesBefore).toBeGreaterThanOrEqual(sizeBefore);
    expect(result.sizeCap.vacuumed).toBe(true);
    expect(result.sizeCap.resolvedInterruptions).toBe(20);
    const sizeAfter = await meter.bytes();
    expect(sizeAfter).toBeLessThanOrEqual(2 * MB);
    expect(sizeAfter).toBeLessThan(sizeBefore);
    expect(result.sizeCap.bytesAfter).toBe(sizeAfter);
    // no resolved interruption is left, the activity row is
    expect(await db.interruption.count({ where: { status: "resolved" } })).toBe(0);
    expect(await db.interruptionActivity.count({ where: { interruptionId: newest[0].id } })).toBe(1);
    // the oldest data went, the newest stayed
    const calls = await db.call.findMany({ select: { id: true }, orderBy: { id: "asc" } });
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThan(N);
    expect(calls.at(-1)!.id).toBe(`c-0${N - 1}`);
    expect(await db.call.findUnique({ where: { id: "c-0000" } })).toBeNull();
    const open = await db.interruption.findMany({ select: { callId: true }, orderBy: { occurredAtNs: "asc" } });
    expect(open.length).toBeGreaterThan(0);
    expect(open.length).toBeLessThan(total - 20);
    // what is left is contiguous: nothing older than the oldest call remains
    const oldestCall = calls[0].id;
    expect(open.every((i) => i.callId! >= oldestCall)).toBe(true);
    expect(await db.message.count({ where: { conversationId: "conv-0" } })).toBe(0);

    // under the cap now: the next sweep leaves everything alone
    const again = await runSweep(db, cfg({ maxDbSizeMb: 2 }), T);
    expect(again.sizeCap.vacuumed).toBe(false);
    expect(await db.call.count()).toBe(calls.length);
  }, 60_000);

  it("deletes blobs no call names before any data: the calls all stay", async () => {
    const { db } = await fresh("sizecap-blobs");
    const meter = (await storageMeter(db))!;
    const system = [{ type: "text" as const, content: "the prompt every call names" }];
    await ingestCalls(db, Array.from({ length: 50 }, (_, i) => ({ ...call(`k-${i}`, { session: "s-k", conv: `conv-k-${i}`, at: T - BigInt(50 - i) * MIN }), system_instructions: system })), defaults.detection);
    const named = (await db.call.findFirstOrThrow()).systemBlobId!;
    // left by calls deleted before retention took blobs with them (each prompt dated, so each unique)
    await db.blob.createMany({ data: Array.from({ length: 700 }, (_, i) => ({ id: `orphan-${String(i).padStart(4, "0")}`, content: filler() })) });
    expect(await meter.bytes()).toBeGreaterThan(2 * MB);

    const result = await runSweep(db, cfg({ maxDbSizeMb: 2 }), T);

    expect(result.sizeCap.trimmed).toMatchObject({ blobs: 700, calls: 0, interruptions: 0 });
    expect(await db.call.count()).toBe(50);
    expect((await db.blob.findMany({ select: { id: true } })).map((b) => b.id)).toEqual([named]);
    expect(await meter.bytes()).toBeLessThanOrEqual(2 * MB);
  }, 60_000);
});

describe("the size cap over the cap with nothing to trim (PostgreSQL)", () => {
  it("clears what only the statistics count, the dead versions of updated rows, instead of measuring the same at every sweep", async () => {
    const { db } = await fresh("sizecap-dead-versions");
    if (dialectOf(db) !== "postgres") return;
    const meter = (await storageMeter(db))!;
    await ingestCalls(db, Array.from({ length: 200 }, (_, i) => call(`dv-${String(i).padStart(3, "0")}`, { session: "s-dv", conv: `conv-dv-${i}`, at: T - BigInt(200 - i) * MIN })), defaults.detection);
    // the older half trimmed and vacuumed: the heaps have room, and the measure knows it
    await deleteOlderThan(db, T - 100n * MIN);
    for (const table of ["Call", "Message", "Conversation", "Turn"]) await db.$executeRawUnsafe(`VACUUM (ANALYZE) "${table}"`);
    const live = await meter.bytes();
    // the rows left updated three times over (as ingest rewrites Session and Turn rows): their dead
    // versions count in the statistics until a VACUUM, and no autovacuum comes by meanwhile
    for (const table of ["Call", "Message", "Conversation", "Turn"]) await db.$executeRawUnsafe(`ALTER TABLE "${table}" SET (autovacuum_enabled = false)`);
    await db.$transaction([
      ...["Call", "Message", "Conversation", "Turn"].flatMap((table) => Array.from({ length: 3 }, () => db.$executeRawUnsafe(`UPDATE "${table}" SET "id" = "id"`))),
      db.$queryRawUnsafe("SELECT 1 AS flushed FROM pg_stat_force_next_flush()"),
    ]);
    const counted = await eventually("the dead versions in the statistics", () => meter.bytes(), (b) => b > live * 1.3);
    const cap = (live * 1.25) / MB; // the statistics say over it; the rows alone are well under its 90 %
    expect(counted).toBeGreaterThan(cap * MB);
    const result = await runSweep(db, cfg({ maxDbSizeMb: cap }), T);
    expect(Object.values(result.sizeCap.trimmed).every((n) => n === 0)).toBe(true); // no row had to go
    expect(await db.call.count()).toBe(100);
    // before, each sweep measured the same, over the cap, until autovacuum came by
    expect(result.sizeCap.bytesAfter).toBeLessThanOrEqual(cap * MB);
  }, 60_000);
});

describe("the size cap with several processes", () => {
  it("paces the headroom by the latest sweep of any process: one that last swept long ago does not trim under the cap", async () => {
    const database = await createTestDatabase("sizecap-processes");
    drops.push(database.drop);
    // two processes: a client each (before, what a process remembered was kept per client)
    const [db, other] = [createDb(database.url), createDb(database.url)];
    open.push(db, other);
    const meter = (await storageMeter(db))!;
    await boundWal(db, 4); // as the server does: the WAL stays a small part of the size
    const INTERVAL = 60n * SEC;
    let clock = T;
    const config = { ...defaults, retentionDays: 30, maxDbSizeMb: 4, checkIntervalSecs: 60 };
    const a = new Sweeper({ db, config, holder: "process-a", now: () => clock, log: () => undefined });
    const b = new Sweeper({ db: other, config, holder: "process-b", now: () => clock, log: () => undefined });
    let n = 0;
    const size = async () => (await meter.prepare(), meter.bytes()); // SQLite: with the WAL checkpointed, as a sweep measures
    const fillTo = async (bytes: number) => {
      while ((await size()) < bytes) {
        const batch = Array.from({ length: 5 }, () => call(`p-${String(n).padStart(4, "0")}`, { session: "s-p", conv: `conv-p-${n}`, at: T - DAY + BigInt(n++) * SEC, history: [user(filler())], answer: filler() }));
        await ingestCalls(db, batch, defaults.detection);
      }
    };
    const trimmed = (r: SweepResult | null) => r!.sizeCap.trimmed.calls;

    expect(trimmed(await a.tick())).toBe(0); // A sweeps the empty database
    // the data grows slowly over ten intervals, to 80 % of the cap; B sweeps then and trims nothing
    await fillTo(3.2 * MB);
    clock = T + 10n * INTERVAL;
    expect(trimmed(await b.tick())).toBe(0);
    const stored = await db.call.count();
    // an interval later A sweeps again: the data did not grow since B's sweep, so nothing goes
    // (before, A measured the growth from its own last sweep, 3 MB, and trimmed to half the cap:
    // what each process remembered of its own sweeps was the baseline)
    clock = T + 11n * INTERVAL;
    expect(trimmed(await a.tick())).toBe(0);
    expect(await db.call.count()).toBe(stored);

    // fast growth since A's sweep (an interval ago), though under the cap: B trims, with headroom
    await fillTo(3.8 * MB);
    expect(await size()).toBeLessThan(4 * MB);
    clock = T + 12n * INTERVAL;
    const fast = await b.tick();
    expect(trimmed(fast)).toBeGreaterThan(0);
    expect(fast!.sizeCap.bytesAfter).toBeLessThanOrEqual(3.2 * MB); // 1.5 times the growth under the cap
  }, 120_000);
});

describe("the size cap and the audit trail", () => {
  it("trims the audit trail of data trimmed already before any data, when it is what fills the cap", async () => {
    const { db } = await fresh("sizecap-activity");
    await ingestCalls(db, Array.from({ length: 100 }, (_, i) => call(`a-${String(i).padStart(3, "0")}`, { session: "s-a", conv: `conv-a-${i}`, at: T - BigInt(100 - i) * MIN, status: 500 })), defaults.detection);
    const [first] = await db.interruption.findMany({ take: 1, select: { id: true } });
    // months of triage (within storage.activity.retention_days) of interruptions trimmed since
    await db.interruptionActivity.createMany({ data: Array.from({ length: 700 }, (_, i) => ({ interruptionId: `gone-${i % 50}`, actor: "alice", action: "comment", note: filler(), atNs: T - 200n * DAY + BigInt(i) * DAY / 10n })) });
    // the trail of an interruption still stored stays whole, however old (clocks differ)
    const kept = await db.interruptionActivity.create({ data: { interruptionId: first.id, actor: "alice", action: "acknowledge", atNs: T - 300n * DAY } });
    const recent = await db.interruptionActivity.create({ data: { interruptionId: first.id, actor: "alice", action: "resolve", atNs: T } });
    const meter = (await storageMeter(db))!;
    expect(await meter.bytes()).toBeGreaterThan(2 * MB);

    const result = await runSweep(db, cfg({ maxDbSizeMb: 2 }), T);

    expect(result.sizeCap.trimmed.activity).toBeGreaterThan(0);
    expect(await meter.bytes()).toBeLessThanOrEqual(2 * MB);
    expect(await db.call.count()).toBe(100); // before: every call went, and the audit trail kept the database over the cap
    expect(await db.interruptionActivity.count({ where: { id: { in: [kept.id, recent.id] } } })).toBe(2);
    expect(await db.interruptionActivity.count({ where: { interruptionId: { startsWith: "gone-" } } })).toBe(0);
  }, 60_000);

  it("trims it all when no call or interruption is left to date it by", async () => {
    const { db } = await fresh("sizecap-activity-alone");
    await db.interruptionActivity.createMany({ data: Array.from({ length: 700 }, (_, i) => ({ interruptionId: `gone-${i % 50}`, actor: "alice", action: "comment", note: filler(), atNs: T - BigInt(i) * MIN })) });
    const meter = (await storageMeter(db))!;
    expect(await meter.bytes()).toBeGreaterThan(2 * MB);
    const result = await runSweep(db, cfg({ maxDbSizeMb: 2 }), T);
    expect(result.sizeCap.trimmed.activity).toBeGreaterThan(0);
    // on PostgreSQL a table VACUUM found empty counts nothing, although its files keep their size
    expect(await meter.bytes()).toBeLessThanOrEqual(2 * MB);
  }, 60_000);
});

describe("the size cap's cutoff", () => {
  it("passes the oldest share of the calls, however late one of them says it ended", async () => {
    const { db } = await fresh("cutoff");
    const calls = Array.from({ length: 20 }, (_, i) => call(`cut-${String(i).padStart(2, "0")}`, { session: "s-cut", conv: `conv-cut-${i}`, at: T - BigInt(20 - i) * MIN }));
    calls[1].end_ns = calls[1].start_ns + 10n * DAY; // the second oldest hung for days, or says so
    await ingestCalls(db, calls, defaults.detection);
    const cutoff = (await nextCutoff(db, 0.1))!; // the oldest 2 of 20
    // with the calls counted by the caller: the same; counted too many (some went meanwhile): counted again
    expect(await nextCutoff(db, 0.1, 20)).toBe(cutoff);
    expect(await nextCutoff(db, 0.5, 100_000)).toBe(await nextCutoff(db, 0.5));
    await deleteOlderThan(db, cutoff);
    expect((await db.call.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((c) => c.id)).toEqual(calls.slice(2).map((c) => c.call_id));
  });
});

describe("retention and the size cap", () => {
  it("counts the space retention freed as free before checking the cap: recent data under the cap stays", async () => {
    const { db } = await fresh("retention-cap");
    const meter = (await storageMeter(db))!;
    // 4 MB of old data (past retention) and about 1 MB of recent data; a 3 MB cap
    const at = (i: number, old: boolean) => (old ? T - 40n * DAY : T - DAY) + BigInt(i) * SEC;
    for (const [old, n] of [[true, 400], [false, 100]] as const) {
      for (let b = 0; b < n; b += 100) {
        const batch = Array.from({ length: 100 }, (_, k) =>
          call(`${old ? "old" : "new"}-${b + k}`, { session: `s-${old}-${b}`, conv: `conv-${old}-${b + k}`, at: at(b + k, old), history: [user(filler())], answer: filler() }));
        await ingestCalls(db, batch, defaults.detection);
      }
    }
    expect(await meter.bytes()).toBeGreaterThan(4 * MB);

    const result = await runSweep(db, cfg({ maxDbSizeMb: 3 }), T);

    expect(result.retention.calls).toBe(400);
    expect(Object.values(result.sizeCap.trimmed).every((n) => n === 0)).toBe(true);
    expect(await db.call.count()).toBe(100);
    expect(await meter.bytes()).toBeLessThanOrEqual(3 * MB);
  }, 60_000);
});

describe("activity retention", () => {
  it("deletes activity rows older than storage.activity.retention_days, batch by batch, and keeps the rest", async () => {
    const { db } = await fresh("activity");
    let clock = T;
    const sweeper = new Sweeper({ db, config: { ...defaults, retentionDays: 30, activityRetentionDays: 365 }, now: () => clock, log: () => undefined });
    const row = (i: number, atNs: bigint) => ({ interruptionId: `i-${i}`, actor: "alice", action: "resolve", atNs });
    // older than a year (more than one batch), and younger: an interruption long gone keeps its trail
    await db.interruptionActivity.createMany({ data: Array.from({ length: BATCH + 20 }, (_, i) => row(i, T - 400n * DAY + BigInt(i) * SEC)) });
    await db.interruptionActivity.createMany({ data: [row(1, T - 364n * DAY), row(2, T - 31n * DAY), row(3, T - MIN)] });

    expect((await sweeper.tick())!.retention.activity).toBe(BATCH + 20);
    expect((await db.interruptionActivity.findMany({ select: { interruptionId: true }, orderBy: { atNs: "asc" } })).map((r) => r.interruptionId)).toEqual(["i-1", "i-2", "i-3"]);

    // two days later the 364-day-old row is past the retention too
    clock = T + 2n * DAY;
    expect((await sweeper.tick())!.retention.activity).toBe(1);
    expect(await db.interruptionActivity.count()).toBe(2);
  }, 60_000);
});

describe("write-ahead log", () => {
  it("checkpoints every 5 % of the cap on SQLite, so the WAL alone cannot fill a small cap", async () => {
    const { db } = await fresh("wal");
    const pages = await boundWal(db, 20);
    if (dialectOf(db) === "postgres") return expect(pages).toBeNull();
    expect(pages).toBe(256); // 1 MiB of 4 KiB pages
    for (let b = 0; b < 6; b++) {
      const batch = Array.from({ length: 100 }, (_, i) => call(`wal-${b}-${i}`, { session: "s-wal", conv: `conv-wal-${b}-${i}`, at: T + BigInt(b * 100 + i) * SEC, history: [user(filler())], answer: filler() }));
      await ingestCalls(db, batch, defaults.detection);
    }
    const [{ file }] = await db.$queryRawUnsafe<{ file: string }[]>("PRAGMA database_list");
    expect(fs.statSync(file).size).toBeGreaterThan(4 * MB); // ~5 MB written through the WAL …
    expect(fs.statSync(`${file}-wal`).size).toBeLessThanOrEqual(2 * MB); // … which stayed small
  }, 60_000);
});

describe("unsettled turns", () => {
  it("flags a stale turn once, not before the stale time, and not a turn that ended", async () => {
    const { db } = await fresh("unsettled");
    const t0 = T - 5n * MIN;
    await ingestCalls(db, [
      call("d-1", { session: "s-1", conv: "conv-1", turn: "t-done", at: t0, history: [user("first")] }),
      call("h-1", { session: "s-1", conv: "conv-1", turn: "t-hang", at: t0 + MIN, history: [user("first"), assistant("answer to d-1"), user("second")] }),
      call("h-2", { session: "s-1", conv: "conv-1", turn: "t-hang", at: t0 + 2n * MIN, history: [user("first"), assistant("answer to d-1"), user("second"), assistant("thinking"), user("more")] }),
      // an agent that never reports turn ends: its turns cannot be judged
      call("x-1", { session: "s-2", conv: "conv-2", turn: "t-silent", at: t0 }),
    ], defaults.detection);
    await ingestEvents(db, [{ kind: "turn_end", session_id: "s-1", conversation_id: "conv-1", turn_id: "t-done", reason: "completed", at_ns: t0 + 30n * SEC }], defaults.detection);
    const lastActivity = t0 + 2n * MIN + SEC; // end of h-2

    let clock = lastActivity + 10n * MIN;
    const sweeper = new Sweeper({ db, config: { ...defaults, retentionDays: 30, maxDbSizeMb: 100 }, now: () => clock, log: () => undefined });
    expect((await sweeper.tick())!.unsettledTurns).toBe(0);
    clock = lastActivity + 29n * MIN;
    expect((await sweeper.tick())!.unsettledTurns).toBe(0);

    clock = lastActivity + 31n * MIN;
    expect((await sweeper.tick())!.unsettledTurns).toBe(1);
    const flagged = await db.interruption.findMany({ where: { type: "state_machine_error" } });
    expect(flagged).toHaveLength(1);
    const i = flagged[0];
    expect(i.id).toBe(interruptionId("unsettled_turn", turnRowId("s-1", "t-hang")));
    expect(i).toMatchObject({ turnId: turnRowId("s-1", "t-hang"), sessionId: "s-1", conversationId: "conv-1", callId: "h-2", severity: "high", agentName: "tester", occurredAtNs: lastActivity });
    expect(JSON.parse(i.detail)).toMatchObject({ rule: "unsettled_turn", turn_id: "t-hang", last_seen_ns: String(lastActivity), calls: 2 });

    // later sweeps never duplicate it
    clock += 60n * MIN;
    expect((await sweeper.tick())!.unsettledTurns).toBe(0);
    expect(await db.interruption.count({ where: { type: "state_machine_error" } })).toBe(1);
    expect(await db.interruption.count({ where: { turnId: { in: ["t-done", "t-silent"] } } })).toBe(0);
  });

  it("flags a full page of stale turns, each in its own conversation", async () => {
    const { db } = await fresh("unsettled-page");
    const t0 = T - 5n * MIN;
    // 500 conversations (a page) of a session that reports turn ends, each left hanging after one call
    const keys = Array.from({ length: 500 }, (_, k) => `p${k}`);
    await ingestCalls(db, keys.map((k) => call(`${k}-1`, { session: "s-page", conv: `conv-${k}`, turn: `t-${k}`, at: t0, history: [user("go")] })), defaults.detection);
    await ingestEvents(db, [{ kind: "turn_end", session_id: "s-page", conversation_id: "conv-ended", turn_id: "t-ended", reason: "completed", at_ns: t0 }], defaults.detection);
    // before, the read of their last calls named 1,000 values, which Prisma refuses on SQLite: the sweep failed, every time
    expect((await runSweep(db, cfg(), T + 40n * MIN)).unsettledTurns).toBe(500);
    expect(await db.interruption.count({ where: { type: "state_machine_error", sessionId: "s-page" } })).toBe(500);
  });

  it("judges a stale turn once: a resolved finding the size cap trimmed does not come back, a later call makes it a question again", async () => {
    const { db } = await fresh("unsettled-once");
    const t0 = T - 5n * MIN;
    const history = [user("first"), assistant("answer"), user("second")];
    await ingestCalls(db, [
      call("o-1", { session: "s-o", conv: "conv-o", turn: "t-ok", at: t0, history: [user("first")] }),
      call("o-2", { session: "s-o", conv: "conv-o", turn: "t-stuck", at: t0 + MIN, history }),
      call("q-1", { session: "s-quiet", conv: "conv-q", turn: "t-quiet", at: t0 }), // a session that never reports turn ends
    ], defaults.detection);
    await ingestEvents(db, [{ kind: "turn_end", session_id: "s-o", conversation_id: "conv-o", turn_id: "t-ok", reason: "completed", at_ns: t0 + 30n * SEC }], defaults.detection);
    const sweep = (now: bigint) => runSweep(db, cfg(), now);

    expect((await sweep(T + 40n * MIN)).unsettledTurns).toBe(1);
    const id = interruptionId("unsettled_turn", turnRowId("s-o", "t-stuck"));
    // every stale turn read is marked judged, the quiet session's too
    const marks = await db.turn.findMany({ where: { label: { in: ["t-stuck", "t-quiet"] } }, select: { id: true, staleCheckedNs: true, lastSeenNs: true }, orderBy: { id: "asc" } });
    expect(marks.every((t) => t.staleCheckedNs === t.lastSeenNs)).toBe(true);

    // resolved, then trimmed as the size cap trims resolved interruptions: the turn stays judged
    await db.interruption.delete({ where: { id } });
    expect((await sweep(T + 50n * MIN)).unsettledTurns).toBe(0);
    expect(await db.interruption.findUnique({ where: { id } })).toBeNull();

    // a later call in the turn: it is judged again once stale again
    await ingestCalls(db, [call("o-3", { session: "s-o", conv: "conv-o", turn: "t-stuck", at: T + 55n * MIN, history: [...history, assistant("still here"), user("go on")] })], defaults.detection);
    expect((await db.turn.findFirstOrThrow({ where: { label: "t-stuck" } })).staleCheckedNs).toBeNull();
    expect((await sweep(T + 60n * MIN)).unsettledTurns).toBe(0); // not stale yet
    expect((await sweep(T + 100n * MIN)).unsettledTurns).toBe(1);
    expect(await db.interruption.findUniqueOrThrow({ where: { id } })).toMatchObject({ callId: "o-3" });
  });

  it("judges again the turns it passed over once their session reports its first turn end", async () => {
    const { db } = await fresh("unsettled-late-reporter");
    const t0 = T - 5n * MIN;
    await ingestCalls(db, [
      call("l-1", { session: "s-l", conv: "conv-l", turn: "t-hung", at: t0, history: [user("first")] }),
      call("l-2", { session: "s-l", conv: "conv-l", turn: "t-later", at: t0 + MIN, history: [user("first"), assistant("answer"), user("second")] }),
    ], defaults.detection);
    // no turn end yet: the session's turns cannot be judged, and are passed over
    expect((await runSweep(db, cfg(), T + 40n * MIN)).unsettledTurns).toBe(0);
    expect((await db.turn.findFirstOrThrow({ where: { label: "t-hung" } })).staleCheckedNs).not.toBeNull();
    await ingestEvents(db, [{ kind: "turn_end", session_id: "s-l", conversation_id: "conv-l", turn_id: "t-later", reason: "completed", at_ns: T + 41n * MIN }], defaults.detection);
    expect((await runSweep(db, cfg(), T + 42n * MIN)).unsettledTurns).toBe(1);
    expect(await db.interruption.findUnique({ where: { id: interruptionId("unsettled_turn", turnRowId("s-l", "t-hung")) } })).not.toBeNull();
  });

  it("does not flag a turn that ended between the sweep's read and its write", async () => {
    const { db } = await fresh("unsettled-ended-meanwhile");
    await sessionWithSlowTurn(db, "e", T - 5n * MIN);
    // the turn's end arrives once the sweep has read the stale turns (as it reads their sessions)
    let ended = false;
    const endTurn = () => ingestEvents(db, [{ kind: "turn_end", session_id: "s-e", conversation_id: "conv-e", turn_id: "t-e-slow", reason: "completed", at_ns: T + 39n * MIN }], defaults.detection);
    const bound = (target: object, value: unknown) => (typeof value === "function" ? value.bind(target) : value);
    const sessions = new Proxy(db.session, {
      get: (target, prop) =>
        prop === "findMany"
          ? async (...args: Parameters<Db["session"]["findMany"]>) => {
              if (!ended) await endTurn().then(() => (ended = true));
              return target.findMany(...args);
            }
          : bound(target, Reflect.get(target, prop)),
    });
    const interleaved = new Proxy(db, { get: (target, prop) => (prop === "session" ? sessions : bound(target, Reflect.get(target, prop))) });
    expect((await runSweep(interleaved, cfg(), T + 40n * MIN)).unsettledTurns).toBe(0);
    expect(ended).toBe(true);
    expect(await db.interruption.findUnique({ where: { id: interruptionId("unsettled_turn", turnRowId("s-e", "t-e-slow")) } })).toBeNull();
    expect(await db.turn.findFirstOrThrow({ where: { label: "t-e-slow" } })).toMatchObject({ endReason: "completed", staleCheckedNs: null });
  });

  it("stopped while it sweeps, finishes that sweep first: its run recorded as done, its lease given up", async () => {
    const { db } = await fresh("stop-mid-sweep");
    const sweeper = new Sweeper({ db, config: defaults, now: () => T, log: () => undefined });
    const sweeping = sweeper.tick();
    await sweeper.stop();
    expect((await db.sweepRun.findMany()).map((r) => r.status)).toEqual(["done"]);
    expect(await db.lease.findUnique({ where: { name: "sweep" } })).toBeNull();
    expect(await sweeping).not.toBeNull();
  });

  it("stops between steps once its lease is lost (another process sweeps now)", async () => {
    const { db } = await fresh("lease-lost");
    await ingestCalls(db, [call("gone-old", { session: "s-lost", conv: "conv-lost", at: T - 40n * DAY })], defaults.detection);
    const lost = new AbortController();
    lost.abort(new Error("lease sweep lost to another process"));
    await expect(runSweep(db, cfg(), T, lost.signal)).rejects.toThrow("lease sweep lost");
    expect(await db.call.count()).toBe(1); // retention did not start
  });

  it("does not overlap ticks", async () => {
    const { db } = await fresh("reentry");
    const sweeper = new Sweeper({ db, config: defaults, now: () => T, log: () => undefined });
    const first = sweeper.tick();
    expect(await sweeper.tick()).toBeNull();
    expect(await first).not.toBeNull();
  });
});
