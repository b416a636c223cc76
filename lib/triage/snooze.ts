// Snoozing by hand (SPEC §4): an interruption, a selection (one snooze per fingerprint among it)
// or a whole fingerprint group (its new interruptions arrive snoozed too); waking a snooze by
// hand; the snoozes as records. Each snoozed interruption gets an activity row with the
// conditions and the reason; changes go in chunks of one transaction each, like bulk triage.
import type { Db } from "../db/client";
import { asText, lockName, marks, readSql, type Sql } from "../db/sql";
import { conflict, invalid, notFound } from "../domain/errors";
import { describeConditions, hasCondition, worstSeverity, type SnoozeConditions } from "../domain/snooze";
import { nowNs } from "../domain/time";
import { transaction } from "../db/sql";
import {
  endEmptied,
  endSnoozeInChunks,
  insertActivity,
  insertSnooze,
  lockChosenSnooze,
  ratePerHour,
  statusJson,
  toSnooze,
  type ActivityRow,
  type NewSnooze,
  type SnoozeRow,
} from "./snoozeStore";

export type SnoozeInput = SnoozeConditions & { reason: string | null; actor: string };

const CHUNK = 500;

type Target = { id: string; status: string; fingerprint: string; severity: string; snoozeId: string | null };

function checked(input: SnoozeInput): SnoozeInput {
  if (!hasCondition(input)) throw invalid("until: give a time, a number of occurrences or until_escalates");
  return input;
}

async function newSnooze(sql: Sql, scope: NewSnooze["scope"], fingerprint: string, severities: string[], input: SnoozeInput, now: bigint): Promise<SnoozeRow> {
  return insertSnooze(
    sql,
    {
      ...input,
      scope,
      fingerprint,
      baselinePerHour: input.untilEscalates ? Math.max(1, await ratePerHour(sql, fingerprint, now)) : null,
      baselineSeverity: worstSeverity(severities),
    },
    now,
  );
}

/**
 * True while `snooze` has not ended; locks its row to the end of the transaction, so an end
 * decided elsewhere (ingest: an escalation, N more; the sweep: its time is up) waits for what
 * this one puts under it, or comes first and is seen here. Its row before the interruptions',
 * as ingest locks them.
 */
async function holdsStill(sql: Sql, snooze: SnoozeRow): Promise<boolean> {
  const live = await sql.all(`UPDATE "Snooze" SET "occurrences" = "occurrences" WHERE "id" = ? AND "endedAtNs" IS NULL RETURNING "id"`, [snooze.id]);
  return live.length > 0;
}

/**
 * Puts `rows` under `snooze` (skipping resolved ones and ones already under it); the ids changed.
 * None once the snooze has ended (e.g. it escalated while a large selection was being moved):
 * what ended it is not hidden again.
 */
async function holdUnder(sql: Sql, rows: Target[], snooze: SnoozeRow, input: SnoozeInput, now: bigint): Promise<number> {
  // this snooze and those of chosen interruptions the rows leave (endEmptied may end them) are
  // locked before the rows, in id order, as ingest locks snoozes before interruptions
  const leaving = rows.flatMap((r) => (r.snoozeId && r.snoozeId !== snooze.id ? [r.snoozeId] : []));
  for (const id of [...new Set([snooze.id, ...leaving])].sort()) {
    if (id !== snooze.id) await lockChosenSnooze(sql, id);
    else if (!(await holdsStill(sql, snooze))) return 0;
  }
  const note = [describeConditions(input), input.reason].filter(Boolean).join(": ");
  const activity: ActivityRow[] = [];
  const left: string[] = [];
  for (const prior of ["open", "acknowledged", "snoozed"]) {
    const moving = rows.filter((r) => r.status === prior && r.snoozeId !== snooze.id);
    if (!moving.length) continue;
    const changed = await sql.all(
      `UPDATE "Interruption" SET "status" = 'snoozed', "snoozeId" = ? WHERE "id" IN (${marks(moving.length)}) AND "status" = ? RETURNING "id"`,
      [snooze.id, ...moving.map((r) => r.id), prior],
    );
    const ids = new Set(changed.map((r) => String(r.id)));
    for (const r of moving.filter((m) => ids.has(m.id))) {
      if (r.snoozeId) left.push(r.snoozeId);
      activity.push({ interruptionId: r.id, actor: input.actor, action: "snooze", before: statusJson(prior), after: statusJson("snoozed"), note, atNs: now });
    }
  }
  await insertActivity(sql, activity);
  await endEmptied(sql, left, now); // a row snoozed again may leave its previous snooze empty
  return activity.length;
}

async function targets(sql: Sql, ids: string[]): Promise<Target[]> {
  const rows = await sql.all(`SELECT "id", "status", "fingerprint", "severity", "snoozeId" FROM "Interruption" WHERE "id" IN (${marks(ids.length)})`, ids);
  return rows.map((r) => ({ id: String(r.id), status: String(r.status), fingerprint: String(r.fingerprint), severity: String(r.severity), snoozeId: asText(r.snoozeId) }));
}

/** Snoozes these interruptions (resolved ones are left as they are): one snooze per fingerprint. */
export async function snoozeMany(db: Db, ids: string[], input: SnoozeInput): Promise<{ matched: number; changed: number }> {
  checked(input);
  const snoozes = new Map<string, SnoozeRow>(); // by fingerprint, across chunks (those committed)
  let matched = 0;
  let changed = 0;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    // what an attempt creates counts once it commits: a deadlock's retry runs the chunk again
    const done = await transaction(db, async (sql) => {
      const now = nowNs();
      const rows = await targets(sql, chunk);
      const eligible = rows.filter((r) => r.status !== "resolved");
      const created = new Map<string, SnoozeRow>();
      let n = 0;
      for (const fingerprint of new Set(eligible.map((r) => r.fingerprint))) {
        const mine = eligible.filter((r) => r.fingerprint === fingerprint);
        let snooze = snoozes.get(fingerprint);
        if (!snooze) created.set(fingerprint, (snooze = await newSnooze(sql, "interruptions", fingerprint, mine.map((r) => r.severity), input, now)));
        n += await holdUnder(sql, mine, snooze, input, now);
      }
      return { matched: rows.length, changed: n, created };
    });
    for (const [fingerprint, snooze] of done.created) snoozes.set(fingerprint, snooze);
    matched += done.matched;
    changed += done.changed;
  }
  return { matched, changed };
}

/** One interruption: 404 when unknown, 409 when resolved. */
export async function snoozeOne(db: Db, id: string, input: SnoozeInput) {
  const row = await db.interruption.findUnique({ where: { id }, select: { status: true } });
  if (!row) throw notFound("Interruption not found");
  if (row.status === "resolved") throw conflict("Interruption is resolved: reopen it before snoozing");
  await snoozeMany(db, [id], input);
  return (await db.interruption.findUnique({ where: { id } }))!;
}

/**
 * Snoozes a fingerprint group: every unresolved interruption of it, whenever it occurred, and
 * the ones that arrive while the snooze lasts. A fingerprint snooze it replaces ends (what it
 * held moves to the new one).
 */
export async function snoozeFingerprint(db: Db, fingerprint: string, input: SnoozeInput) {
  checked(input);
  const snooze = await transaction(db, async (sql) => {
    // two group snoozes of one fingerprint at once: one after the other, the later replaces the earlier
    await lockName(sql, `snooze-group:${fingerprint}`);
    const now = nowNs();
    const worst = await sql.all(`SELECT DISTINCT "severity" FROM "Interruption" WHERE "fingerprint" = ? AND "status" <> 'resolved'`, [fingerprint]);
    const created = await newSnooze(sql, "fingerprint", fingerprint, worst.map((r) => String(r.severity)), input, now);
    await sql.run(
      `UPDATE "Snooze" SET "endedAtNs" = ?, "endReason" = 'replaced by a new snooze of the group' WHERE "fingerprint" = ? AND "scope" = 'fingerprint' AND "endedAtNs" IS NULL AND "id" <> ?`,
      [now, fingerprint, created.id],
    );
    return created;
  });
  let changed = 0;
  for (;;) {
    const n = await transaction(db, async (sql) => {
      const rows = await sql.all(
        `SELECT "id" FROM "Interruption" WHERE "fingerprint" = ? AND "status" <> 'resolved' AND ("snoozeId" IS NULL OR "snoozeId" <> ?) LIMIT ${CHUNK}`,
        [fingerprint, snooze.id],
      );
      return rows.length ? holdUnder(sql, await targets(sql, rows.map((r) => String(r.id))), snooze, input, nowNs()) : 0;
    });
    if (n === 0) break; // nothing left (or nothing movable: it changed meanwhile, or the snooze ended)
    changed += n;
  }
  return { ...(await snoozeRecordOf(db, snooze.id)), changed };
}

/** Wakes a snooze now (idempotent: an ended snooze is returned as it is). */
export async function wakeSnooze(db: Db, id: string, actor: string) {
  const found = await db.snooze.findUnique({ where: { id }, select: { id: true } });
  if (!found) throw notFound("Snooze not found");
  await endSnoozeInChunks(db, id, `woken by ${actor}`, actor);
  return snoozeRecordOf(db, id);
}

export function snoozeRecord(s: SnoozeRow, held: number) {
  return {
    id: s.id,
    scope: s.scope,
    fingerprint: s.fingerprint,
    mute_rule_id: s.muteRuleId,
    until_ns: s.untilNs,
    until_occurrences: s.untilOccurrences,
    until_escalates: s.untilEscalates,
    occurrences: s.occurrences,
    baseline_per_hour: s.baselinePerHour,
    baseline_severity: s.baselineSeverity,
    reason: s.reason,
    actor: s.actor,
    created_at_ns: s.createdAtNs,
    ended_at_ns: s.endedAtNs,
    end_reason: s.endReason,
    snoozed: held,
  };
}

export type SnoozeRecord = ReturnType<typeof snoozeRecord>;

/** How many interruptions each snooze holds now. */
async function heldCounts(sql: Sql, ids: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const rows = await sql.all(`SELECT "snoozeId", COUNT(*) AS "n" FROM "Interruption" WHERE "snoozeId" IN (${marks(chunk.length)}) GROUP BY "snoozeId"`, chunk);
    for (const r of rows) counts.set(String(r.snoozeId), Number(r.n));
  }
  return counts;
}

async function snoozeRecordOf(db: Db, id: string): Promise<SnoozeRecord> {
  const sql = readSql(db);
  const [row] = await sql.all(`SELECT * FROM "Snooze" WHERE "id" = ?`, [id]);
  if (!row) throw notFound("Snooze not found");
  return snoozeRecord(toSnooze(row), (await heldCounts(sql, [id])).get(id) ?? 0);
}

export type SnoozeListQuery = { active: boolean; fingerprint?: string; limit: number };

/** Snoozes, newest first: the active ones (the default) or the ended ones. */
export async function listSnoozes(db: Db, q: SnoozeListQuery): Promise<SnoozeRecord[]> {
  const sql = readSql(db);
  const where = [q.active ? `"endedAtNs" IS NULL` : `"endedAtNs" IS NOT NULL`, ...(q.fingerprint ? [`"fingerprint" = ?`] : [])];
  const rows = (await sql.all(`SELECT * FROM "Snooze" WHERE ${where.join(" AND ")} ORDER BY "createdAtNs" DESC, "id" DESC LIMIT ?`, [...(q.fingerprint ? [q.fingerprint] : []), q.limit])).map(toSnooze);
  const held = await heldCounts(sql, rows.map((r) => r.id));
  return rows.map((r) => snoozeRecord(r, held.get(r.id) ?? 0));
}
