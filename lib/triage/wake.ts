// Time-based wake-ups (SPEC §4), a step of the periodic sweep: snoozes and mute rules whose time
// is up end and wake what they hold. Ingest checks the same conditions for the fingerprints it
// sees (lib/triage/arrivals.ts); this catches fingerprints that went quiet.
import type { Db } from "../db/client";
import { readSql, transaction } from "../db/sql";
import { NS_PER_HOUR } from "../domain/time";
import { endSnoozeInChunks, SYSTEM_ACTOR, wakeRest } from "./snoozeStore";

const BATCH = 500;
/** How far back ended snoozes are checked for interruptions they still hold. */
const LEFTOVER_WINDOW_NS = 24n * NS_PER_HOUR;

export async function wakeDueSnoozes(db: Db, now: bigint): Promise<number> {
  let woken = 0;
  for (;;) {
    const due = await db.snooze.findMany({ where: { endedAtNs: null, untilNs: { lte: now } }, select: { id: true, scope: true }, orderBy: { untilNs: "asc" }, take: BATCH });
    for (const s of due) woken += await endSnoozeInChunks(db, s.id, s.scope === "mute" ? "the mute rule expired" : "the snooze time is up", SYSTEM_ACTOR, now);
    if (due.length < BATCH) break;
  }
  woken += await wakeLeftovers(db, now);
  await endEmptySelections(db, now);
  return woken;
}

/**
 * Snoozes of chosen interruptions whose interruptions are all gone (retention deleted them):
 * nothing is left to wake, so they end instead of waiting for a condition forever.
 */
async function endEmptySelections(db: Db, now: bigint): Promise<void> {
  await transaction(db, (sql) =>
    sql.run(
      `UPDATE "Snooze" SET "endedAtNs" = ?, "endReason" = 'nothing left snoozed'
        WHERE "scope" = 'interruptions' AND "endedAtNs" IS NULL AND NOT EXISTS (SELECT 1 FROM "Interruption" WHERE "Interruption"."snoozeId" = "Snooze"."id")`,
      [now],
    ),
  );
}

/**
 * Interruptions still snoozed under a snooze that ended: a wake-up cut short by a failure, or a
 * batch that wrote its arrivals under a snooze a wake-up ended meanwhile. They wake now.
 */
async function wakeLeftovers(db: Db, now: bigint): Promise<number> {
  const rows = await readSql(db).all(
    `SELECT "s"."id", "s"."endReason" FROM "Snooze" AS "s"
      WHERE "s"."endedAtNs" >= ? AND EXISTS (SELECT 1 FROM "Interruption" AS "i" WHERE "i"."snoozeId" = "s"."id" AND "i"."status" = 'snoozed')`,
    [now - LEFTOVER_WINDOW_NS],
  );
  let woken = 0;
  for (const r of rows) woken += await wakeRest(db, String(r.id), String(r.endReason ?? "the snooze ended"), SYSTEM_ACTOR, now);
  return woken;
}
