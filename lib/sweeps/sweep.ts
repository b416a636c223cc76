// The periodic sweep (SPEC §3.5, §7): retention by age, the size cap, and unsettled turns.
//
// Every delete runs in batches of at most BATCH rows, one short transaction each (batches.ts), so ingest
// (which shares the database) never waits long; a conversation's messages go with it, in one
// transaction (a few conversations to one; a large one in slices, newest messages first). No
// step rewrites a table on PostgreSQL. A step that fails fails the sweep after the others ran.
//
// Retention (cutoff = now − retention_days):
//   - interruptions whose last evidence (lastSeenNs) is older than the cutoff;
//   - calls that started before it, with the tool-call rows they made and the blobs (system
//     prompts, tool definitions) no remaining call names;
//   - turns and tool calls last seen before it;
//   - message chains only of conversations whose newest call is older than the cutoff (a
//     Message row is shared by every later call of its conversation), then the conversation;
//   - sessions last seen (and exited, if they did) before it.
//   InterruptionActivity rows (the audit trail) outlive the interruptions they describe: they
//   have their own, longer retention (storage.activity.retention_days); the size cap trims only
//   those of interruptions no longer stored, older than its cutoff.
// Size cap: when the database (storage.ts says how each kind is measured) exceeds
//   max_db_size_mb, delete blobs no call names (left by calls deleted before retention took
//   blobs with them), the oldest resolved interruptions, then apply retention with a cutoff
//   moving forward over the oldest calls and interruptions (the activity rows of interruptions
//   gone, before it, go too: a year of audit trail alone can outgrow the cap, and keeping it while
//   every call and interruption goes would leave nothing to audit), until the live data fits in 90 % of
//   the cap (less when the data grows fast: enforceSizeCap); then reclaim the space (SQLite:
//   VACUUM; PostgreSQL: plain VACUUM, which makes it reusable and so free in what the cap
//   measures).
// Unsettled turns: a turn with calls, no turn_end and no activity for stale_turn_minutes gets
//   one state_machine_error {rule: "unsettled_turn"} (deterministic id: never duplicated). Only
//   turns of sessions that have reported at least one turn_end are judged: an agent that never
//   sends turn_end events cannot be told apart from one whose turns all hang. Each turn is judged
//   once each time it goes stale (Turn.staleCheckedNs marks it; its next call clears the mark), so
//   a sweep reads only the turns that went stale since the last one, and a finding resolved and
//   then trimmed by the size cap does not come back. A session's first turn_end clears the marks
//   of its turns passed over before it (lib/ingest/storeEvents.ts).
import type { SightDeskConfig } from "../config/load";
import type { Db, DbTx } from "../db/client";
import { nowNs } from "../domain/time";
import { existingIds, inChunks, insertRows } from "../db/multiRow";
import { foldOpenCounts } from "../db/openCounts";
import { lockKeys, marks, type Sql } from "../db/sql";
import { buildInterruption, stampAtCommit, type InterruptionRow } from "../ingest/interruptions";
import { blobLockKey, interruptionId } from "../ingest/keys";
import { batch, BATCH, deleteBatch, inBatches, sqlOf } from "./batches";
import { lastSizeLeft, type SizeLeft } from "./runs";
import { storageMeter, type Deleted, type StorageMeter } from "./storage";
import { admitArrivals, asAdmitted } from "../triage/arrivals";
import { wakeDueSnoozes } from "../triage/wake";

export { BATCH } from "./batches";

const NS_PER_SEC = 1_000_000_000n;
const NS_PER_DAY = 86_400n * NS_PER_SEC;
const MB = 1024 * 1024;
/** Conversations read per pass (deleted with their messages, several to a transaction). */
const CONVERSATION_BATCH = 100;

export type SweepConfig = Pick<SightDeskConfig, "detection" | "retentionDays" | "activityRetentionDays" | "maxDbSizeMb" | "staleTurnMinutes" | "checkIntervalSecs">;

export type DeleteCounts = {
  interruptions: number;
  calls: number;
  toolCalls: number;
  messages: number;
  turns: number;
  conversations: number;
  sessions: number;
  /** content-addressed system prompts and tool definitions that no call names any more */
  blobs: number;
  /** InterruptionActivity rows (their own retention; the size cap trims those older than its cutoff) */
  activity: number;
};

export type SweepResult = {
  retention: DeleteCounts;
  sizeCap: {
    /** database bytes before and after (storage.ts); null for an in-memory database */
    bytesBefore: number | null;
    bytesAfter: number | null;
    resolvedInterruptions: number;
    trimmed: DeleteCounts;
    vacuumed: boolean;
  };
  unsettledTurns: number;
};

const zero = (): DeleteCounts => ({ interruptions: 0, calls: 0, toolCalls: 0, messages: 0, turns: 0, conversations: 0, sessions: 0, blobs: 0, activity: 0 });

function add(a: DeleteCounts, b: DeleteCounts): DeleteCounts {
  const out = { ...a };
  for (const k of Object.keys(b) as (keyof DeleteCounts)[]) out[k] += b[k];
  return out;
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

type CallBlobs = { id: string; systemBlobId: string | null; toolsBlobId: string | null };

/** A blob no call names (each test through its column's index). */
const UNNAMED = `NOT EXISTS (SELECT 1 FROM "Call" WHERE "systemBlobId" = "Blob"."id") AND NOT EXISTS (SELECT 1 FROM "Call" WHERE "toolsBlobId" = "Blob"."id")`;

/**
 * Those of `blobIds` no call names but `leaving` (calls this transaction deletes), with their keys
 * locked. Ingest holds a blob's key (shared) until the call naming it commits, so `deleteBlobs`
 * then sees every call naming them. Only these are locked — an agent's prompt, named by its every
 * call, is not, and its ingest never waits — and before the transaction locks any row: an ingest
 * holding a key may then wait for nothing this transaction holds.
 */
async function lockBlobsToDelete(db: Db, tx: DbTx, sql: Sql, blobIds: string[], leaving: string[] = []): Promise<string[]> {
  if (!blobIds.length) return [];
  const others = (column: string) =>
    `NOT EXISTS (SELECT 1 FROM "Call" WHERE "${column}" = "Blob"."id"${leaving.length ? ` AND "id" NOT IN (${marks(leaving.length)})` : ""})`;
  const found = ids(
    await tx.$queryRawUnsafe<{ id: string }[]>(
      sqlOf(db, `SELECT "id" FROM "Blob" WHERE "id" IN (${marks(blobIds.length)}) AND ${others("systemBlobId")} AND ${others("toolsBlobId")}`),
      ...blobIds, ...leaving, ...leaving,
    ),
  );
  await lockKeys(sql, found.map(blobLockKey));
  return found;
}

/** Deletes those of the locked `blobIds` that no call names now. */
async function deleteBlobs(db: Db, tx: DbTx, blobIds: string[]): Promise<number> {
  if (!blobIds.length) return 0;
  return tx.$executeRawUnsafe(sqlOf(db, `DELETE FROM "Blob" WHERE "id" IN (${marks(blobIds.length)}) AND ${UNNAMED}`), ...blobIds);
}

/**
 * Deletes every blob no call names, walking the table by id a batch at a time: retention deletes
 * a call's blobs with it, but blobs left by calls deleted before it did (or by a failed sweep) are
 * found only this way. The size cap runs it first: such blobs are nobody's data.
 */
export async function deleteAllUnnamedBlobs(db: Db): Promise<number> {
  let deleted = 0;
  for (let after = ""; ; ) {
    const page = ids(await db.blob.findMany({ where: { id: { gt: after } }, select: { id: true }, orderBy: { id: "asc" }, take: BATCH }));
    if (!page.length) return deleted;
    deleted += await batch(
      db,
      async (tx, sql) => deleteBlobs(db, tx, await lockBlobsToDelete(db, tx, sql, page)),
      { atomic: true },
    );
    after = page[page.length - 1];
  }
}

/** Deletes everything older than `cutoff` (ns), batch by batch. */
export async function deleteOlderThan(db: Db, cutoff: bigint): Promise<DeleteCounts> {
  const c = zero();
  c.interruptions = await inBatches(() => deleteBatch(db, "Interruption", `"occurredAtNs" < ? AND "lastSeenNs" < ?`, [cutoff, cutoff]));
  // calls go with the tool-call rows they made and the blobs only they named, in one transaction
  c.calls = await inBatches(async () => {
    // counted once committed: a transaction retried after a deadlock runs its deletes again
    const done = await batch(
      db,
      async (tx, sql) => {
        const calls = await tx.$queryRawUnsafe<CallBlobs[]>(sqlOf(db, `SELECT "id", "systemBlobId", "toolsBlobId" FROM "Call" WHERE "startNs" < ? LIMIT ${BATCH}`), cutoff);
        if (!calls.length) return { calls: 0, toolCalls: 0, blobs: 0 };
        const callIds = ids(calls);
        const blobIds = [...new Set(calls.flatMap((r) => [r.systemBlobId, r.toolsBlobId]).filter((id) => id !== null))];
        const orphans = await lockBlobsToDelete(db, tx, sql, blobIds, callIds);
        const toolCalls = await tx.$executeRawUnsafe(sqlOf(db, `DELETE FROM "ToolCall" WHERE "callId" IN (${marks(callIds.length)})`), ...callIds);
        const deleted = await tx.$executeRawUnsafe(sqlOf(db, `DELETE FROM "Call" WHERE "id" IN (${marks(callIds.length)})`), ...callIds);
        return { calls: deleted, toolCalls, blobs: await deleteBlobs(db, tx, orphans) };
      },
      { atomic: true },
    );
    c.toolCalls += done.toolCalls;
    c.blobs += done.blobs;
    return done.calls;
  });
  c.toolCalls += await inBatches(() => deleteBatch(db, "ToolCall", `"atNs" < ?`, [cutoff]));
  c.turns = await inBatches(() => deleteBatch(db, "Turn", `"lastSeenNs" < ?`, [cutoff]));
  // Message chains: only of conversations with no call at or after the cutoff.
  for (;;) {
    const found = ids(await db.conversation.findMany({ where: { lastSeenNs: { lt: cutoff } }, select: { id: true }, take: CONVERSATION_BATCH }));
    if (!found.length) break;
    for (const group of await bySize(db, found)) {
      const deleted = await deleteConversations(db, group, cutoff);
      c.messages += deleted.messages;
      c.conversations += deleted.conversations;
    }
    if (found.length < CONVERSATION_BATCH) break;
  }
  c.sessions = await inBatches(() => deleteBatch(db, "Session", `"lastSeenNs" < ? AND ("exitedAtNs" IS NULL OR "exitedAtNs" < ?)`, [cutoff, cutoff]));
  return c;
}

/** Most messages deleted in one transaction. */
export const MESSAGES_PER_TRANSACTION = 10 * BATCH;

/** `conversations` in groups of at most MESSAGES_PER_TRANSACTION messages (a larger one alone, deleted in slices). */
async function bySize(db: Db, conversations: string[]): Promise<string[][]> {
  const counts = await db.message.groupBy({ by: ["conversationId"], where: { conversationId: { in: conversations } }, _count: { _all: true } });
  const size = new Map(counts.map((r) => [r.conversationId, r._count._all]));
  const groups: string[][] = [];
  let group: string[] = [];
  let messages = 0;
  for (const conversation of conversations) {
    const n = size.get(conversation) ?? 0;
    if (group.length && messages + n > MESSAGES_PER_TRANSACTION) {
      groups.push(group);
      group = [];
      messages = 0;
    }
    group.push(conversation);
    messages += n;
  }
  if (group.length) groups.push(group);
  return groups;
}

/**
 * Deletes the conversations still older than `cutoff` with all their messages, holding the
 * locks ingest takes for them (`lockKeys`): a call ingested meanwhile either moved its
 * conversation past the cutoff first (then no more of it goes) or finds the messages gone and
 * stores its history again. A group's messages go in one transaction; a conversation with more
 * than MESSAGES_PER_TRANSACTION goes in several, newest messages first, the conversation's row
 * with the last: what stays between them is every history's beginning, so a stored message
 * still stands for all before it (lib/ingest/messageStore.ts), and no transaction grows with
 * the conversation (a long-lived agent's, past the transaction timeout, failed every sweep).
 */
async function deleteConversations(db: Db, conversations: string[], cutoff: bigint): Promise<{ messages: number; conversations: number }> {
  const stillOld = `"id" IN (${marks(conversations.length)}) AND "lastSeenNs" < ?`;
  const params = [...conversations, cutoff];
  const newest = `SELECT "id" FROM "Message" WHERE "conversationId" IN (SELECT "id" FROM "Conversation" WHERE ${stillOld}) ORDER BY "seq" DESC LIMIT ${MESSAGES_PER_TRANSACTION}`;
  const total = { messages: 0, conversations: 0 };
  for (;;) {
    const done = await batch(
      db,
      async (tx) => {
        const messages = await tx.$executeRawUnsafe(sqlOf(db, `DELETE FROM "Message" WHERE "id" IN (${newest})`), ...params);
        if (messages === MESSAGES_PER_TRANSACTION) return { messages, conversations: 0 };
        return { messages, conversations: await tx.$executeRawUnsafe(sqlOf(db, `DELETE FROM "Conversation" WHERE ${stillOld}`), ...params) };
      },
      { atomic: true, lock: conversations },
    );
    total.messages += done.messages;
    total.conversations += done.conversations;
    if (done.messages < MESSAGES_PER_TRANSACTION) return total;
  }
}

/** Deletes activity rows older than `cutoff` (ns), batch by batch. */
export const deleteActivityOlderThan = (db: Db, cutoff: bigint): Promise<number> =>
  inBatches(() => deleteBatch(db, "InterruptionActivity", `"atNs" < ?`, [cutoff]));

/**
 * Deletes activity rows older than `cutoff` (ns) whose interruption is gone, batch by batch: the
 * size cap's share of the audit trail. The trail of an interruption still kept stays whole (its
 * oldest rows may predate the cutoff, and triage is dated by the server's clock, the data by the
 * agents').
 */
const deleteOrphanActivityOlderThan = (db: Db, cutoff: bigint): Promise<number> =>
  inBatches(() =>
    deleteBatch(db, "InterruptionActivity", `"atNs" < ? AND NOT EXISTS (SELECT 1 FROM "Interruption" WHERE "Interruption"."id" = "InterruptionActivity"."interruptionId")`, [cutoff]),
  );

// ---------------------------------------------------------------------------------------------
// Size cap

/** Most calls one move of the size cap's cutoff passes (their rows still go in batches of BATCH). */
const CUTOFF_STEP = 10 * BATCH;

/**
 * The timestamp just past the end of the oldest `share` of the calls (at most CUTOFF_STEP of them, at least one),
 * or of the interruptions when no call is left; null when there is nothing to trim. `callsLeft`:
 * how many calls there are, when the caller keeps count (a count reads every call: once per trim,
 * not once per step of CUTOFF_STEP calls).
 */
export async function nextCutoff(db: Db, share: number, callsLeft?: number): Promise<bigint | null> {
  const step = (count: number) => Math.max(1, Math.min(CUTOFF_STEP, Math.ceil(count * share)));
  const calls = callsLeft ?? (await db.call.count());
  if (calls) {
    const [row, next] = await db.call.findMany({ select: { startNs: true, endNs: true }, orderBy: { startNs: "asc" }, skip: step(calls) - 1, take: 2 });
    if (!row) return callsLeft === undefined ? null : nextCutoff(db, share); // fewer calls than the caller counted: count them
    // past the call's end: its interruptions (which occur when it ends) go with it, not after it —
    // but never past the next call's start: one call that ended days later (or says so) must not
    // carry every call before its end away with it
    let end = row.endNs !== null && row.endNs > row.startNs ? row.endNs : row.startNs;
    if (next && end >= next.startNs) end = next.startNs > row.startNs ? next.startNs - 1n : row.startNs;
    return end + 1n;
  }
  const interruptions = await db.interruption.count();
  if (!interruptions) return null;
  // by last evidence: retention deletes an interruption only once its lastSeenNs is past the cutoff
  const [row] = await db.interruption.findMany({ select: { lastSeenNs: true }, orderBy: { lastSeenNs: "asc" }, skip: step(interruptions) - 1, take: 1 });
  return row.lastSeenNs + 1n;
}

/** When the oldest call or interruption left happened; null when there is neither. */
async function oldestDataNs(db: Db): Promise<bigint | null> {
  const [call, interruption] = await Promise.all([
    db.call.findFirst({ select: { startNs: true }, orderBy: { startNs: "asc" } }),
    db.interruption.findFirst({ select: { occurredAtNs: true }, orderBy: { occurredAtNs: "asc" } }),
  ]);
  const times = [call?.startNs, interruption?.occurredAtNs].filter((t) => t !== undefined);
  return times.length ? times.reduce((a, b) => (a < b ? a : b)) : null;
}

/** Rows deleted per table, as the storage meter counts them. */
const byTable = (c: DeleteCounts, resolvedInterruptions = 0): Deleted => ({
  Interruption: c.interruptions + resolvedInterruptions, Call: c.calls, ToolCall: c.toolCalls, Message: c.messages, Turn: c.turns, Conversation: c.conversations, Session: c.sessions,
  Blob: c.blobs, InterruptionActivity: c.activity,
});

const RECLAIM_ROUNDS = 3;
/** Later than any time stored (ns; BIGINT holds up to 2^63 − 1). */
const ALL_TIME = 2n ** 62n;

/** Deletes the oldest resolved interruptions, then the oldest data, until the live data fits `target`. */
async function trimTo(db: Db, meter: StorageMeter, target: number, signal?: AbortSignal): Promise<{ resolvedInterruptions: number; rows: DeleteCounts }> {
  await meter.prepare();
  let resolvedInterruptions = 0;
  let rows = zero();
  const deleted = () => byTable(rows, resolvedInterruptions);
  // 0. blobs no call names any more
  if ((await meter.liveBytes(deleted())) > target) rows.blobs += await deleteAllUnnamedBlobs(db);
  // 1. the oldest resolved interruptions
  while ((await meter.liveBytes(deleted())) > target) {
    signal?.throwIfAborted();
    const n = await deleteBatch(db, "Interruption", `"status" = 'resolved'`, [], `"occurredAtNs"`);
    resolvedInterruptions += n;
    // a short batch may only have lost rows reopened meanwhile (deleteBatch asks again): go on until none is left
    if (n === 0) break;
  }
  // 2. the audit trail older than any call or interruption left (all of it when none is): of data trimmed already
  if ((await meter.liveBytes(deleted())) > target) rows.activity += await deleteOrphanActivityOlderThan(db, (await oldestDataNs(db)) ?? ALL_TIME);
  // 3. then the oldest of everything, a cutoff moving forward at most CUTOFF_STEP calls at a time
  let callsLeft: number | undefined;
  for (let live = await meter.liveBytes(deleted()); live > target; live = await meter.liveBytes(deleted())) {
    // drop about the share of rows that is over the target, oldest first, then measure again
    signal?.throwIfAborted();
    callsLeft ??= await db.call.count();
    const cutoff = await nextCutoff(db, (live - target) / live, callsLeft);
    if (cutoff === null) break;
    const more = await deleteOlderThan(db, cutoff);
    // ingest adds calls meanwhile (newer ones: the cutoff moves through the oldest); never below none
    callsLeft = callsLeft > more.calls ? callsLeft - more.calls : undefined; // none left by the count: count them again
    more.activity = await deleteOrphanActivityOlderThan(db, cutoff);
    rows = add(rows, more);
    if (Object.values(more).every((v) => v === 0)) break; // nothing left that can go
  }
  return { resolvedInterruptions, rows };
}

/**
 * How much the database grows in one check interval, at the pace it grew since `left` (the size
 * the latest sweep left it at, whichever process ran it). A baseline older than an interval (the
 * sweeps paused, or the data stopped coming) spreads its growth over the time since.
 */
export function growthPerInterval(bytes: number, left: SizeLeft | null, now: bigint, intervalNs: bigint): number {
  if (!left || bytes <= left.bytes) return 0;
  const elapsed = now - left.atNs;
  return elapsed > intervalNs ? ((bytes - left.bytes) * Number(intervalNs)) / Number(elapsed) : bytes - left.bytes;
}

export type SizeCapOptions = {
  maxDbSizeMb: number;
  /** the time of the sweep, and the size the previous one left (lastSizeLeft) */
  now: bigint;
  left: SizeLeft | null;
  intervalNs: bigint;
  /** aborted when the sweep's lease is lost: another process sweeps now */
  signal?: AbortSignal;
};

/**
 * Trims when the database is over the cap, or will be before the next sweep at the pace it grew
 * since the last sweep left it; down to 90 % of the cap, or lower by 1.5 times that growth so
 * that it stays under the cap until the next sweep (half the cap at least).
 */
export async function enforceSizeCap(db: Db, o: SizeCapOptions, meter: StorageMeter | null = null): Promise<SweepResult["sizeCap"]> {
  const out: SweepResult["sizeCap"] = { bytesBefore: null, bytesAfter: null, resolvedInterruptions: 0, trimmed: zero(), vacuumed: false };
  meter ??= await storageMeter(db);
  if (!meter) return out;
  const cap = o.maxDbSizeMb * MB;
  let bytes = (out.bytesBefore = await meter.bytes());
  const growth = growthPerInterval(bytes, o.left, o.now, o.intervalNs);
  const target = Math.floor(Math.max(cap * 0.5, Math.min(cap * 0.9, cap - 1.5 * growth)));
  const limit = Math.max(target, cap - growth);
  // PostgreSQL's occupied size is an estimate: when reclaiming leaves it over the cap, measure again
  for (let round = 0; round < RECLAIM_ROUNDS && bytes > limit; round++) {
    const trimmed = await trimTo(db, meter, target, o.signal);
    out.resolvedInterruptions += trimmed.resolvedInterruptions;
    out.trimmed = add(out.trimmed, trimmed.rows);
    bytes = await meter.bytes();
    // give the free space back to the file system
    if (bytes > limit) {
      await meter.reclaim(byTable(trimmed.rows, trimmed.resolvedInterruptions));
      out.vacuumed = true;
      bytes = await meter.bytes();
    }
  }
  out.bytesAfter = bytes;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Unsettled turns (SPEC §3.5)

type TurnRef = { id: string; conversationId: string | null };
const CALL_SUMMARY = { id: true, turnId: true, traceId: true, model: true, agentName: true } as const;

/**
 * Turns per read of their calls: each names its conversation and itself (two values), and
 * Prisma refuses an ordered read of more than 999 values on SQLite (P2029) — a page of 500 would.
 */
const TURNS_PER_READ = 400;

/** Each turn's latest call, by turn id (read through the conversation's index). */
async function lastCallOfTurns(db: Db, turns: TurnRef[]) {
  const out = new Map<string, { id: string; traceId: string | null; model: string | null; agentName: string | null }>();
  const inConversations = turns.filter((t) => t.conversationId !== null);
  // a turn's calls come in one chunk, newest first
  const calls = await inChunks(inConversations, TURNS_PER_READ, (chunk) =>
    db.call.findMany({
      where: { conversationId: { in: [...new Set(chunk.map((t) => t.conversationId!))] }, turnId: { in: chunk.map((t) => t.id) } },
      orderBy: { startNs: "desc" },
      select: CALL_SUMMARY,
    }),
  );
  for (const c of calls) if (!out.has(c.turnId!)) out.set(c.turnId!, c);
  for (const t of turns.filter((t) => t.conversationId === null)) {
    const c = await db.call.findFirst({ where: { conversationId: null, turnId: t.id }, orderBy: { startNs: "desc" }, select: CALL_SUMMARY });
    if (c) out.set(t.id, c);
  }
  return out;
}

export async function flagUnsettledTurns(db: Db, cfg: SweepConfig, now: bigint): Promise<number> {
  if (!cfg.detection.enabled) return 0;
  const staleBefore = now - BigInt(cfg.staleTurnMinutes) * 60n * NS_PER_SEC;
  let flagged = 0;
  const seen = new Set<string>();
  for (;;) {
    // turns gone stale and not judged since their last call (each judged turn is marked below,
    // so the next page is again the first one); through the (endReason, staleCheckedNs, lastSeenNs) index
    const stale = await db.turn.findMany({
      where: { endReason: null, staleCheckedNs: null, lastSeenNs: { lt: staleBefore } },
      orderBy: { lastSeenNs: "asc" },
      take: BATCH,
    });
    const page = stale.filter((t) => !seen.has(t.id));
    if (!page.length) break; // every one read was judged already (its mark lost to a concurrent call)
    for (const t of page) seen.add(t.id);
    const turns = page.filter((t) => t.callCount > 0 && t.sessionId !== null);
    const idOf = new Map(turns.map((t) => [t.id, interruptionId("unsettled_turn", t.id)]));
    const existing = new Set(ids(await db.interruption.findMany({ where: { id: { in: [...idOf.values()] } }, select: { id: true } })));
    const sessionIds = [...new Set(turns.map((t) => t.sessionId!))];
    const reporting = new Set(
      (await db.turn.groupBy({ by: ["sessionId"], where: { sessionId: { in: sessionIds }, endReason: { not: null } } })).map((r) => r.sessionId),
    );
    const candidates = turns.filter((t) => !existing.has(idOf.get(t.id)!) && reporting.has(t.sessionId));
    const rows: InterruptionRow[] = [];
    if (candidates.length) {
      const sessions = new Map(
        (await db.session.findMany({ where: { id: { in: [...new Set(candidates.map((t) => t.sessionId!))] } }, select: { id: true, agentName: true, pid: true, lastModel: true } })).map(
          (s) => [s.id, s],
        ),
      );
      const lastCalls = await lastCallOfTurns(db, candidates);
      for (const t of candidates) {
        const lastCall = lastCalls.get(t.id);
        const session = sessions.get(t.sessionId!);
        const detail = { rule: "unsettled_turn", turn_id: t.label ?? t.id, last_seen_ns: String(t.lastSeenNs), calls: t.callCount, stale_minutes: cfg.staleTurnMinutes };
        rows.push(buildInterruption(idOf.get(t.id)!, "state_machine_error", detail, t.lastSeenNs, {
          sessionId: t.sessionId,
          conversationId: t.conversationId,
          turnId: t.id,
          callId: lastCall?.id ?? null,
          traceId: lastCall?.traceId ?? null,
          pid: session?.pid ?? null,
          agentName: lastCall?.agentName ?? session?.agentName ?? null,
          model: lastCall?.model ?? session?.lastModel ?? null,
        }, cfg.detection));
      }
    }
    // the findings and the marks together: a page is judged once, whatever happens between
    const silent = sessionIds.filter((id) => !reporting.has(id));
    const pageSessions = [...new Set(page.flatMap((t) => (t.sessionId === null ? [] : [t.sessionId])))];
    flagged += await batch(db, async (_tx, sql) => {
      // Under the keys of the page's sessions, as event and call ingest write their turns: a
      // turn_end batch (Turn rows, then Snooze rows of a process_exit) would otherwise lock rows
      // in another order than this (Turn rows, then Snooze rows of the findings) — a deadlock.
      // A session's first turn_end clears the marks of the turns passed over for want of one
      // (storeEvents.ts): one that came since they were read leaves them unmarked, for the next
      // sweep to judge; one still to come waits for this transaction.
      await lockKeys(sql, pageSessions);
      const nowReporting = new Set(
        silent.length ? (await sql.all(`SELECT DISTINCT "sessionId" FROM "Turn" WHERE "sessionId" IN (${marks(silent.length)}) AND "endReason" IS NOT NULL`, silent)).map((r) => String(r.sessionId)) : [],
      );
      // judged as of the activity read: a turn a call changed since is left for the next sweep;
      // rows in the order ingest writes them, turns (by id) before interruptions and snoozes
      const judged = page.filter((t) => !(t.sessionId !== null && nowReporting.has(t.sessionId))).sort((a, b) => (a.id < b.id ? -1 : 1));
      const changed = await sql.runEach(`UPDATE "Turn" SET "staleCheckedNs" = "lastSeenNs" WHERE "id" = ? AND "lastSeenNs" = ? AND "endReason" IS NULL`, judged.map((t) => [t.id, t.lastSeenNs]));
      // findings only of turns still as read (one that ended or had a call since is not unsettled);
      // a row another sweep stored meanwhile (same deterministic id) is left alone
      const stillStale = new Set(judged.filter((_, i) => changed[i] > 0).map((t) => idOf.get(t.id)));
      const stored = await existingIds(sql, "Interruption", rows.map((r) => r.id));
      const fresh = rows.filter((r) => stillStale.has(r.id) && !stored.has(r.id));
      // a mute rule or a snoozed group may make them arrive snoozed (SPEC §4)
      const admission = await admitArrivals(sql, fresh, [], now);
      // stamped now, after the waits for locks, and on PostgreSQL again as it commits (the
      // database's clock): the alert scan and the inbox's banner find new rows by this stamp
      const stamped = asAdmitted(fresh, admission).map((r) => ({ ...r, createdAtNs: nowNs() }));
      await insertRows(sql, "Interruption", stamped, { key: ["id"], update: "nothing" });
      await stampAtCommit(sql, stamped);
      return fresh.length;
    }, { atomic: true });
    if (stale.length < BATCH) break;
  }
  return flagged;
}

// ---------------------------------------------------------------------------------------------

/**
 * The start of what `days` of retention keep, never before 1970: a retention longer than the
 * clock goes back ("1000000": keep forever) would otherwise reach below a 64-bit column's range.
 */
const retentionCutoff = (now: bigint, days: number): bigint => {
  const cutoff = now - BigInt(days) * NS_PER_DAY;
  return cutoff > 0n ? cutoff : 0n;
};

/**
 * One sweep at time `now` (integer ns): retention, size cap, unsettled turns. `signal` (the lease
 * lost to another process, which sweeps now) stops it between steps and between the cap's
 * deletes: two size caps trimming at once would each delete what is over the cap.
 */
export async function runSweep(db: Db, cfg: SweepConfig, now: bigint, signal?: AbortSignal): Promise<SweepResult> {
  // Each step has its turn whatever the steps before it did: a step that fails (a database error,
  // a transaction past its timeout) fails the sweep once the others ran, so retention stuck on
  // one conversation does not stop the size cap, the unsettled-turn flags or the snoozes' wake-ups.
  const failures: unknown[] = [];
  const step = async <T>(run: () => Promise<T>, failed: T): Promise<T> => {
    signal?.throwIfAborted();
    try {
      return await run();
    } catch (error) {
      if (signal?.aborted) throw error;
      failures.push(error);
      return failed;
    }
  };
  await step(() => foldOpenCounts(db), undefined); // the per-session counts' change log stays short even when nobody reads them
  const retention = await step(() => deleteOlderThan(db, retentionCutoff(now, cfg.retentionDays)), zero());
  retention.activity = await step(() => deleteActivityOlderThan(db, retentionCutoff(now, cfg.activityRetentionDays)), 0);
  // before the cap: what it writes (findings, judged marks) is in the size the cap leaves
  const unsettledTurns = await step(() => flagUnsettledTurns(db, cfg, now), 0);
  const sizeCap = await step(async () => {
    const meter = await storageMeter(db);
    // what retention freed must count as free before the cap trims anything (else autovacuum sees to it)
    if (meter && Object.values(retention).some((n) => n > 0) && (await meter.bytes()) > cfg.maxDbSizeMb * MB) await meter.release(byTable(retention));
    const left = await lastSizeLeft(db);
    signal?.throwIfAborted();
    return enforceSizeCap(db, { maxDbSizeMb: cfg.maxDbSizeMb, now, left, intervalNs: BigInt(cfg.checkIntervalSecs) * NS_PER_SEC, signal }, meter);
  }, null);
  await step(() => wakeDueSnoozes(db, now), undefined); // snoozes and mute rules whose time is up (SPEC §4)
  if (failures.length) throw failures[0];
  return { retention, sizeCap: sizeCap!, unsettledTurns };
}
