// The periodic sweep (SPEC §3.5, §7): retention by age, the size cap, and unsettled turns.
//
// Every delete runs in batches of at most BATCH rows, one short transaction each, so ingest
// (which shares the database) never waits long. No step rewrites a table on PostgreSQL.
//
// Retention (cutoff = now − retention_days):
//   - interruptions whose last evidence (lastSeenNs) is older than the cutoff;
//   - calls that started before it, with the tool-call rows they made;
//   - turns and tool calls last seen before it;
//   - message chains only of conversations whose newest call is older than the cutoff (a
//     Message row is shared by every later call of its conversation), then the conversation;
//   - sessions last seen (and exited, if they did) before it.
//   Content-addressed blobs (system prompts, tool definitions) are shared and small; they stay.
//   InterruptionActivity rows (the audit trail) outlive the interruptions they describe: they
//   have their own, longer retention (storage.activity.retention_days) and the size cap never
//   trims them.
// Size cap: when the database (storage.ts says how each kind is measured) exceeds
//   max_db_size_mb, delete the oldest resolved interruptions, then apply retention with a cutoff
//   moving forward over the oldest calls and interruptions, until the live data fits in 90 % of
//   the cap; then reclaim the space (SQLite: VACUUM; PostgreSQL: plain VACUUM, which makes it
//   reusable and so free in what the cap measures).
// Unsettled turns: a turn with calls, no turn_end and no activity for stale_turn_minutes gets
//   one state_machine_error {rule: "unsettled_turn"} (deterministic id: never duplicated). Only
//   turns of sessions that have reported at least one turn_end are judged: an agent that never
//   sends turn_end events cannot be told apart from one whose turns all hang.
import type { SightDeskConfig } from "../config/load";
import type { Db } from "../db/client";
import { buildInterruption } from "../ingest/interruptions";
import { interruptionId } from "../ingest/keys";
import { storageMeter, type Deleted, type StorageMeter } from "./storage";

// Under 999: Prisma refuses a deleteMany with more bound ids than SQLite's historical limit (P2029).
export const BATCH = 500;
const NS_PER_SEC = 1_000_000_000n;
const NS_PER_DAY = 86_400n * NS_PER_SEC;
const MB = 1024 * 1024;
/** Conversations whose messages are removed per pass (their messages in batches of BATCH). */
const CONVERSATION_BATCH = 100;

export type SweepConfig = Pick<SightDeskConfig, "detection" | "retentionDays" | "activityRetentionDays" | "maxDbSizeMb" | "staleTurnMinutes">;

export type DeleteCounts = {
  interruptions: number;
  calls: number;
  toolCalls: number;
  messages: number;
  turns: number;
  conversations: number;
  sessions: number;
  /** InterruptionActivity rows (their own retention; never trimmed by the size cap) */
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

const zero = (): DeleteCounts => ({ interruptions: 0, calls: 0, toolCalls: 0, messages: 0, turns: 0, conversations: 0, sessions: 0, activity: 0 });

function add(a: DeleteCounts, b: DeleteCounts): DeleteCounts {
  const out = { ...a };
  for (const k of Object.keys(b) as (keyof DeleteCounts)[]) out[k] += b[k];
  return out;
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

/** Repeats `step` (one batch in one transaction, returning rows deleted) until a batch comes up short. */
async function inBatches(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < BATCH) return total;
  }
}

/** Deletes everything older than `cutoff` (ns), batch by batch. */
export async function deleteOlderThan(db: Db, cutoff: bigint): Promise<DeleteCounts> {
  const c = zero();
  c.interruptions = await inBatches(() =>
    db.$transaction(async (tx) => {
      const rows = await tx.interruption.findMany({ where: { occurredAtNs: { lt: cutoff }, lastSeenNs: { lt: cutoff } }, select: { id: true }, take: BATCH });
      if (rows.length) await tx.interruption.deleteMany({ where: { id: { in: ids(rows) } } });
      return rows.length;
    }),
  );
  c.calls = await inBatches(() =>
    db.$transaction(async (tx) => {
      const rows = await tx.call.findMany({ where: { startNs: { lt: cutoff } }, select: { id: true }, take: BATCH });
      if (!rows.length) return 0;
      const callIds = ids(rows);
      c.toolCalls += (await tx.toolCall.deleteMany({ where: { callId: { in: callIds } } })).count;
      await tx.call.deleteMany({ where: { id: { in: callIds } } });
      return rows.length;
    }),
  );
  c.toolCalls += await inBatches(() =>
    db.$transaction(async (tx) => {
      const rows = await tx.toolCall.findMany({ where: { atNs: { lt: cutoff } }, select: { id: true }, take: BATCH });
      if (rows.length) await tx.toolCall.deleteMany({ where: { id: { in: ids(rows) } } });
      return rows.length;
    }),
  );
  c.turns = await inBatches(() =>
    db.$transaction(async (tx) => {
      const rows = await tx.turn.findMany({ where: { lastSeenNs: { lt: cutoff } }, select: { id: true }, take: BATCH });
      if (rows.length) await tx.turn.deleteMany({ where: { id: { in: ids(rows) } } });
      return rows.length;
    }),
  );
  // Message chains: only of conversations with no call at or after the cutoff.
  for (;;) {
    const conversations = ids(await db.conversation.findMany({ where: { lastSeenNs: { lt: cutoff } }, select: { id: true }, take: CONVERSATION_BATCH }));
    if (!conversations.length) break;
    c.messages += await inBatches(() =>
      db.$transaction(async (tx) => {
        const rows = await tx.message.findMany({ where: { conversationId: { in: conversations } }, select: { id: true }, take: BATCH });
        if (rows.length) await tx.message.deleteMany({ where: { id: { in: ids(rows) } } });
        return rows.length;
      }),
    );
    // a call that arrived meanwhile moved lastSeenNs forward: that conversation then stays
    c.conversations += (await db.conversation.deleteMany({ where: { id: { in: conversations }, lastSeenNs: { lt: cutoff } } })).count;
    if (conversations.length < CONVERSATION_BATCH) break;
  }
  c.sessions = await inBatches(() =>
    db.$transaction(async (tx) => {
      const rows = await tx.session.findMany({
        where: { lastSeenNs: { lt: cutoff }, OR: [{ exitedAtNs: null }, { exitedAtNs: { lt: cutoff } }] },
        select: { id: true },
        take: BATCH,
      });
      if (rows.length) await tx.session.deleteMany({ where: { id: { in: ids(rows) } } });
      return rows.length;
    }),
  );
  return c;
}

/** Deletes activity rows older than `cutoff` (ns), batch by batch. */
export async function deleteActivityOlderThan(db: Db, cutoff: bigint): Promise<number> {
  return inBatches(() =>
    db.$transaction(async (tx) => {
      const rows = await tx.interruptionActivity.findMany({ where: { atNs: { lt: cutoff } }, select: { id: true }, take: BATCH });
      if (rows.length) await tx.interruptionActivity.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
      return rows.length;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Size cap

/** Most calls one move of the size cap's cutoff passes (their rows still go in batches of BATCH). */
const CUTOFF_STEP = 10 * BATCH;

/**
 * The timestamp just past the end of the oldest `share` of the calls (at most CUTOFF_STEP of them, at least one),
 * or of the interruptions when no call is left; null when there is nothing to trim.
 */
async function nextCutoff(db: Db, share: number): Promise<bigint | null> {
  const step = (count: number) => Math.max(1, Math.min(CUTOFF_STEP, Math.ceil(count * share)));
  const calls = await db.call.count();
  if (calls) {
    const [row] = await db.call.findMany({ select: { startNs: true, endNs: true }, orderBy: { startNs: "asc" }, skip: step(calls) - 1, take: 1 });
    // past the call's end: its interruptions (which occur when it ends) go with it, not after it
    return (row.endNs !== null && row.endNs > row.startNs ? row.endNs : row.startNs) + 1n;
  }
  const interruptions = await db.interruption.count();
  if (!interruptions) return null;
  // by last evidence: retention deletes an interruption only once its lastSeenNs is past the cutoff
  const [row] = await db.interruption.findMany({ select: { lastSeenNs: true }, orderBy: { lastSeenNs: "asc" }, skip: step(interruptions) - 1, take: 1 });
  return row.lastSeenNs + 1n;
}

/** Rows deleted per table, as the storage meter counts them. */
const byTable = (c: DeleteCounts, resolvedInterruptions = 0): Deleted => ({
  Interruption: c.interruptions + resolvedInterruptions, Call: c.calls, ToolCall: c.toolCalls, Message: c.messages, Turn: c.turns, Conversation: c.conversations, Session: c.sessions,
  InterruptionActivity: c.activity,
});

const RECLAIM_ROUNDS = 3;

/** Deletes the oldest resolved interruptions, then the oldest data, until the live data fits `target`. */
async function trimTo(db: Db, meter: StorageMeter, target: number): Promise<{ resolvedInterruptions: number; rows: DeleteCounts }> {
  await meter.prepare();
  let resolvedInterruptions = 0;
  let rows = zero();
  const deleted = () => byTable(rows, resolvedInterruptions);
  // 1. the oldest resolved interruptions
  while ((await meter.liveBytes(deleted())) > target) {
    const n = await db.$transaction(async (tx) => {
      const found = await tx.interruption.findMany({ where: { status: "resolved" }, select: { id: true }, orderBy: { occurredAtNs: "asc" }, take: BATCH });
      if (found.length) await tx.interruption.deleteMany({ where: { id: { in: ids(found) } } });
      return found.length;
    });
    resolvedInterruptions += n;
    if (n < BATCH) break;
  }
  // 2. then the oldest of everything, a cutoff moving forward at most CUTOFF_STEP calls at a time
  for (let live = await meter.liveBytes(deleted()); live > target; live = await meter.liveBytes(deleted())) {
    // drop about the share of rows that is over the target, oldest first, then measure again
    const cutoff = await nextCutoff(db, (live - target) / live);
    if (cutoff === null) break;
    const more = await deleteOlderThan(db, cutoff);
    rows = add(rows, more);
    if (Object.values(more).every((v) => v === 0)) break; // nothing left that can go
  }
  return { resolvedInterruptions, rows };
}

export async function enforceSizeCap(db: Db, maxDbSizeMb: number, meter: StorageMeter | null = null): Promise<SweepResult["sizeCap"]> {
  const out: SweepResult["sizeCap"] = { bytesBefore: null, bytesAfter: null, resolvedInterruptions: 0, trimmed: zero(), vacuumed: false };
  meter ??= await storageMeter(db);
  if (!meter) return out;
  const cap = maxDbSizeMb * MB;
  const target = Math.floor(cap * 0.9);
  let bytes = (out.bytesBefore = await meter.bytes());
  // PostgreSQL's occupied size is an estimate: when reclaiming leaves it over the cap, measure again
  for (let round = 0; round < RECLAIM_ROUNDS && bytes > cap; round++) {
    const trimmed = await trimTo(db, meter, target);
    out.resolvedInterruptions += trimmed.resolvedInterruptions;
    out.trimmed = add(out.trimmed, trimmed.rows);
    bytes = await meter.bytes();
    // give the free space back to the file system
    if (bytes > cap) {
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

export async function flagUnsettledTurns(db: Db, cfg: SweepConfig, now: bigint): Promise<number> {
  if (!cfg.detection.enabled) return 0;
  const staleBefore = now - BigInt(cfg.staleTurnMinutes) * 60n * NS_PER_SEC;
  let flagged = 0;
  let after = "";
  for (;;) {
    const turns = await db.turn.findMany({
      where: { id: { gt: after }, endReason: null, callCount: { gt: 0 }, lastSeenNs: { lt: staleBefore }, sessionId: { not: null } },
      orderBy: { id: "asc" },
      take: BATCH,
    });
    if (!turns.length) break;
    after = turns[turns.length - 1].id;
    const idOf = new Map(turns.map((t) => [t.id, interruptionId("unsettled_turn", t.id)]));
    const existing = new Set(ids(await db.interruption.findMany({ where: { id: { in: [...idOf.values()] } }, select: { id: true } })));
    const sessionIds = [...new Set(turns.map((t) => t.sessionId!))];
    const reporting = new Set(
      (await db.turn.groupBy({ by: ["sessionId"], where: { sessionId: { in: sessionIds }, endReason: { not: null } } })).map((r) => r.sessionId),
    );
    const candidates = turns.filter((t) => !existing.has(idOf.get(t.id)!) && reporting.has(t.sessionId));
    if (candidates.length) {
      const sessions = new Map(
        (await db.session.findMany({ where: { id: { in: [...new Set(candidates.map((t) => t.sessionId!))] } }, select: { id: true, agentName: true, pid: true, lastModel: true } })).map(
          (s) => [s.id, s],
        ),
      );
      flagged += await db.$transaction(async (tx) => {
        let n = 0;
        for (const t of candidates) {
          const id = idOf.get(t.id)!;
          if (await tx.interruption.findUnique({ where: { id }, select: { id: true } })) continue;
          const lastCall = await tx.call.findFirst({
            where: { conversationId: t.conversationId, turnId: t.id },
            orderBy: { startNs: "desc" },
            select: { id: true, traceId: true, model: true, agentName: true },
          });
          const session = sessions.get(t.sessionId!);
          const detail = { rule: "unsettled_turn", turn_id: t.id, last_seen_ns: String(t.lastSeenNs), calls: t.callCount, stale_minutes: cfg.staleTurnMinutes };
          const row = buildInterruption(id, "state_machine_error", detail, t.lastSeenNs, {
            sessionId: t.sessionId,
            conversationId: t.conversationId,
            turnId: t.id,
            callId: lastCall?.id ?? null,
            traceId: lastCall?.traceId ?? null,
            pid: session?.pid ?? null,
            agentName: lastCall?.agentName ?? session?.agentName ?? null,
            model: lastCall?.model ?? session?.lastModel ?? null,
          }, cfg.detection);
          await tx.interruption.create({ data: row });
          n += 1;
        }
        return n;
      });
    }
    if (turns.length < BATCH) break;
  }
  return flagged;
}

// ---------------------------------------------------------------------------------------------

/** One sweep at time `now` (integer ns): retention, size cap, unsettled turns. */
export async function runSweep(db: Db, cfg: SweepConfig, now: bigint): Promise<SweepResult> {
  const retention = await deleteOlderThan(db, now - BigInt(cfg.retentionDays) * NS_PER_DAY);
  retention.activity = await deleteActivityOlderThan(db, now - BigInt(cfg.activityRetentionDays) * NS_PER_DAY);
  const meter = await storageMeter(db);
  // what retention freed must count as free before the cap is checked, or the cap trims more
  if (meter && Object.values(retention).some((n) => n > 0)) await meter.release(byTable(retention));
  const sizeCap = await enforceSizeCap(db, cfg.maxDbSizeMb, meter);
  const unsettledTurns = await flagUnsettledTurns(db, cfg, now);
  return { retention, sizeCap, unsettledTurns };
}
