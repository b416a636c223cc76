// The grouped inbox (SPEC §3.4): interruptions grouped by fingerprint (type + agent + model +
// error code), with counts per state, first/last seen, a small trend and the regressed flag. A
// grouped interruption (dead loop, retry storm) counts once, with its sightings in `occurrences`,
// and is last seen when its latest evidence came (SPEC §3.4), not when it opened.
import { SEVERITIES, SEVERITY_WEIGHT, type InterruptionFilter } from "../../domain/interruptions";
import { bucketWidthNs } from "../../domain/time";
import type { Db } from "../client";
import { asBigInt, asText, marks, readSql } from "../sql";
import { filterSql, REGRESSED_SQL, SEVERITY_RANK_SQL } from "./filterSql";

/** SEVERITY_RANK_SQL's weight back to the severity. */
const SEVERITY_OF_WEIGHT = new Map(Object.entries(SEVERITY_WEIGHT).map(([s, w]) => [w, s]));

/** `after`: the last group of the previous page (groups go by last sighting, newest first, then fingerprint). */
export type GroupsQuery = { filter: InterruptionFilter; limit: number; buckets: number; after?: { lastNs: bigint; fingerprint: string } };

/** Where the page after `group` starts (`cursor` of GET /api/interruptions/groups). */
export const encodeGroupCursor = (group: { last_seen_ns: bigint; fingerprint: string }) => `${group.last_seen_ns}.${group.fingerprint}`;

export async function interruptionGroups(db: Db, q: GroupsQuery) {
  const sql = readSql(db);
  const where = filterSql(q.filter);
  const rows = await sql.all(
    `SELECT "fingerprint", MIN("type") AS "type", MIN("agentName") AS "agentName", MIN("model") AS "model",
            MAX(${SEVERITY_RANK_SQL}) AS "rank",
            COUNT(*) AS "n", SUM("occurrences") AS "occurrences",
            SUM(CASE WHEN "status" = 'open' THEN 1 ELSE 0 END) AS "open",
            SUM(CASE WHEN "status" = 'acknowledged' THEN 1 ELSE 0 END) AS "acknowledged",
            SUM(CASE WHEN "status" = 'snoozed' THEN 1 ELSE 0 END) AS "snoozed",
            SUM(CASE WHEN "status" = 'resolved' THEN 1 ELSE 0 END) AS "resolved",
            MIN("occurredAtNs") AS "first", MAX("lastSeenNs") AS "last",
            MAX(CASE WHEN ${REGRESSED_SQL} THEN 1 ELSE 0 END) AS "regressed"
       FROM "Interruption" WHERE ${where.sql}
       GROUP BY "fingerprint"${q.after ? ` HAVING MAX("lastSeenNs") < ? OR (MAX("lastSeenNs") = ? AND "fingerprint" < ?)` : ""}
       ORDER BY "last" DESC, "fingerprint" DESC LIMIT ?`,
    [...where.params, ...(q.after ? [q.after.lastNs, q.after.lastNs, q.after.fingerprint] : []), q.limit],
  );
  const fingerprints = rows.map((r) => String(r.fingerprint));
  const width = bucketWidthNs(q.filter.startNs, q.filter.endNs, q.buckets);
  const trend = new Map<string, number[]>(fingerprints.map((f) => [f, Array(q.buckets).fill(0)]));
  if (fingerprints.length) {
    const series = await sql.all(
      `SELECT "fingerprint", ("occurredAtNs" - ?) / ? AS "bucket", COUNT(*) AS "n" FROM "Interruption"
        WHERE ${where.sql} AND "fingerprint" IN (${marks(fingerprints.length)}) GROUP BY "fingerprint", "bucket"`,
      [q.filter.startNs, width, ...where.params, ...fingerprints],
    );
    for (const s of series) {
      const counts = trend.get(String(s.fingerprint));
      const i = Number(s.bucket);
      if (counts && i >= 0 && i < counts.length) counts[i] = Number(s.n);
    }
  }
  return rows.map((r) => ({
    fingerprint: String(r.fingerprint),
    interruption_type: String(r.type),
    agent_name: asText(r.agentName),
    model: asText(r.model),
    severity: SEVERITY_OF_WEIGHT.get(Number(r.rank)) ?? SEVERITIES[SEVERITIES.length - 1],
    count: Number(r.n),
    occurrences: Number(r.occurrences),
    by_status: { open: Number(r.open), acknowledged: Number(r.acknowledged), snoozed: Number(r.snoozed), resolved: Number(r.resolved) },
    first_seen_ns: asBigInt(r.first)!, // of a group's rows: never null
    last_seen_ns: asBigInt(r.last)!,
    regressed: Number(r.regressed) === 1,
    trend: trend.get(String(r.fingerprint)) ?? [],
  }));
}
