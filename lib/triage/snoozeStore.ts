// The snooze rows and what they hold, in plain SQL so the same code runs inside an ingest
// transaction, a sweep or a route: ending a snooze wakes its interruptions (back to open, one
// activity row each, saying why). Invariant: an interruption has a snoozeId exactly while its
// status is `snoozed`.
import crypto from "node:crypto";
import { insertRows } from "../db/multiRow";
import type { Db } from "../db/client";
import { asBigInt, asBool, asNumber, asText, marks, transaction, type Row, type Sql } from "../db/sql";
import type { SnoozeConditions, SnoozeScope, SnoozeState } from "../domain/snooze";
import { RATE_WINDOW_NS } from "../domain/snooze";
import { nowNs } from "../domain/time";

/** The actor of what SightDesk does by itself (wake-ups, arrivals under a snooze or mute rule). */
export const SYSTEM_ACTOR = "system";

const CHUNK = 500;

export type SnoozeRow = SnoozeState & {
  id: string;
  scope: SnoozeScope;
  fingerprint: string | null;
  muteRuleId: string | null;
  reason: string | null;
  actor: string;
  createdAtNs: bigint;
  endedAtNs: bigint | null;
  endReason: string | null;
};

export function toSnooze(r: Row): SnoozeRow {
  return {
    id: String(r.id),
    scope: String(r.scope) as SnoozeScope,
    fingerprint: asText(r.fingerprint),
    muteRuleId: asText(r.muteRuleId),
    untilNs: asBigInt(r.untilNs),
    untilOccurrences: asNumber(r.untilOccurrences),
    occurrences: asNumber(r.occurrences) ?? 0,
    untilEscalates: asBool(r.untilEscalates) ?? false,
    baselinePerHour: asNumber(r.baselinePerHour),
    baselineSeverity: asText(r.baselineSeverity),
    reason: asText(r.reason),
    actor: String(r.actor),
    createdAtNs: asBigInt(r.createdAtNs)!,
    endedAtNs: asBigInt(r.endedAtNs),
    endReason: asText(r.endReason),
  };
}

export type NewSnooze = SnoozeConditions & {
  scope: SnoozeScope;
  fingerprint: string | null;
  muteRuleId?: string | null;
  baselinePerHour?: number | null;
  baselineSeverity?: string | null;
  reason: string | null;
  actor: string;
};

export async function insertSnooze(sql: Sql, s: NewSnooze, now: bigint): Promise<SnoozeRow> {
  const row = {
    id: crypto.randomUUID(),
    scope: s.scope,
    fingerprint: s.fingerprint,
    muteRuleId: s.muteRuleId ?? null,
    untilNs: s.untilNs,
    untilOccurrences: s.untilOccurrences,
    occurrences: 0,
    untilEscalates: s.untilEscalates,
    baselinePerHour: s.baselinePerHour ?? null,
    baselineSeverity: s.baselineSeverity ?? null,
    reason: s.reason,
    actor: s.actor,
    createdAtNs: now,
    endedAtNs: null,
    endReason: null,
  };
  await insertRows(sql, "Snooze", [row], { key: ["id"], update: "nothing" });
  return row;
}

/** Interruptions of `fingerprint` that occurred in the hour up to `now`: the rate escalation compares. */
export async function ratePerHour(sql: Sql, fingerprint: string, now: bigint): Promise<number> {
  const [r] = await sql.all(`SELECT COUNT(*) AS "n" FROM "Interruption" WHERE "fingerprint" = ? AND "occurredAtNs" > ? AND "occurredAtNs" <= ?`, [
    fingerprint,
    now - RATE_WINDOW_NS,
    now,
  ]);
  return Number(r.n);
}

export type ActivityRow = {
  interruptionId: string;
  actor: string;
  action: string;
  before: string | null;
  after: string | null;
  note: string | null;
  atNs: bigint;
};

export async function insertActivity(sql: Sql, rows: ActivityRow[]): Promise<void> {
  await insertRows(sql, "InterruptionActivity", rows, { key: ["id"], update: "nothing" });
}

export const statusJson = (status: string) => JSON.stringify({ status });

/**
 * Ends an active snooze and wakes what it holds; 0 (and nothing done) when it had ended already.
 * The guarded update also serializes this with ingest counting toward the same snooze.
 */
export async function endSnooze(sql: Sql, id: string, reason: string, actor: string, now: bigint): Promise<number> {
  const ended = await sql.all(`UPDATE "Snooze" SET "endedAtNs" = ?, "endReason" = ? WHERE "id" = ? AND "endedAtNs" IS NULL RETURNING "id"`, [now, reason, id]);
  if (!ended.length) return 0;
  return wakeHeld(sql, id, reason, actor, now);
}

/** Returns up to CHUNK interruptions still snoozed under `snoozeId` to open, with an activity row each; how many. */
async function wakeChunk(sql: Sql, snoozeId: string, reason: string, actor: string, now: bigint): Promise<{ woken: number; more: boolean }> {
  const held = (await sql.all(`SELECT "id" FROM "Interruption" WHERE "snoozeId" = ? AND "status" = 'snoozed' LIMIT ${CHUNK}`, [snoozeId])).map((r) => String(r.id));
  if (!held.length) return { woken: 0, more: false };
  const rows = await sql.all(
    `UPDATE "Interruption" SET "status" = 'open', "snoozeId" = NULL, "acknowledgedBy" = NULL, "acknowledgedAtNs" = NULL
      WHERE "id" IN (${marks(held.length)}) AND "snoozeId" = ? AND "status" = 'snoozed' RETURNING "id"`,
    [...held, snoozeId],
  );
  await insertActivity(
    sql,
    rows.map((r) => ({ interruptionId: String(r.id), actor, action: "wake", before: statusJson("snoozed"), after: statusJson("open"), note: reason, atNs: now })),
  );
  return { woken: rows.length, more: held.length === CHUNK };
}

/** Returns every interruption still snoozed under `snoozeId` to open, in the caller's transaction. */
export async function wakeHeld(sql: Sql, snoozeId: string, reason: string, actor: string, now: bigint): Promise<number> {
  let woken = 0;
  for (let more = true; more; ) {
    const step = await wakeChunk(sql, snoozeId, reason, actor, now);
    woken += step.woken;
    more = step.more;
  }
  return woken;
}

/**
 * `endSnooze` outside a transaction, for snoozes that may hold many (a mute rule's): the snooze
 * ends in one short transaction, what it holds wakes CHUNK rows per transaction after it (what a
 * failure leaves snoozed, the sweep wakes: see wakeLeftovers).
 */
export async function endSnoozeInChunks(db: Db, id: string, reason: string, actor: string, now = nowNs()): Promise<number> {
  const ended = await transaction(db, async (sql) => (await sql.all(`UPDATE "Snooze" SET "endedAtNs" = ?, "endReason" = ? WHERE "id" = ? AND "endedAtNs" IS NULL RETURNING "id"`, [now, reason, id])).length > 0);
  if (!ended) return 0;
  return wakeRest(db, id, reason, actor, now);
}

/** Wakes what an ended snooze still holds, one transaction per chunk. */
export async function wakeRest(db: Db, id: string, reason: string, actor: string, now: bigint): Promise<number> {
  let woken = 0;
  for (let more = true; more; ) {
    const step = await transaction(db, (sql) => wakeChunk(sql, id, reason, actor, now));
    woken += step.woken;
    more = step.more;
  }
  return woken;
}

/**
 * Locks the row of a snooze of chosen interruptions (the kind endEmptied may end) to the end of
 * the transaction. Callers take them one by one in id order, before the interruptions' rows, as
 * ingest does (it counts an arrival on its snooze before it writes the interruption).
 */
export async function lockChosenSnooze(sql: Sql, id: string): Promise<void> {
  await sql.run(`UPDATE "Snooze" SET "occurrences" = "occurrences" WHERE "id" = ? AND "scope" = 'interruptions'`, [id]);
}

/**
 * Ends snoozes of chosen interruptions that no longer hold any (each was resolved, reopened or
 * snoozed again by hand); fingerprint snoozes and mute rules go on holding new arrivals.
 */
export async function endEmptied(sql: Sql, snoozeIds: Iterable<string>, now: bigint): Promise<void> {
  const ids = [...new Set(snoozeIds)];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    await sql.run(
      `UPDATE "Snooze" SET "endedAtNs" = ?, "endReason" = 'nothing left snoozed'
        WHERE "id" IN (${marks(chunk.length)}) AND "scope" = 'interruptions' AND "endedAtNs" IS NULL
          AND NOT EXISTS (SELECT 1 FROM "Interruption" WHERE "Interruption"."snoozeId" = "Snooze"."id")`,
      [now, ...chunk],
    );
  }
}
