// The whole session-counts answer as JSON text written by the database: grouping, ordering and
// writing every session's entry in one SQL statement leaves the server no per-row work (no row
// objects, no folding, no JSON.stringify). Its bytes are what JSON.stringify wrote before.
import { SEVERITIES, UNASSIGNED, type CountSort, type InterruptionFilter } from "../../domain/interruptions";
import { JSON_SQL, sessionCountJson, typeCountsJson } from "../jsonSql";
import type { Dialect } from "../sql";
import { filterSql, unresolvedOnly } from "./filterSql";
import type { SessionCountsOptions } from "./sessionCounts";

/** The order of the answer; topSessions.ts ranks by the same rules. */
function orderOf(sort: CountSort | undefined, bytes: (expr: string) => string): string {
  const bySeverity = SEVERITIES.map((s) => `"${s}" DESC`).join(", ");
  // the unassigned group first among equals, as when NULL session ids sorted first
  const byKey = `CASE WHEN "k" = '${UNASSIGNED}' THEN 0 ELSE 1 END, ${bytes('"k"')}`;
  switch (sort) {
    case undefined:
      return `"total" DESC, ${byKey}`;
    case "total":
      return `"total" DESC, ${bySeverity}, ${byKey}`;
    case "severity":
      return `${bySeverity}, "total" DESC, ${byKey}`;
  }
}

/** The statement that returns the whole answer as one JSON text in the column "body". */
export function sessionCountsSql(dialect: Dialect, f: InterruptionFilter, o: SessionCountsOptions): { sql: string; params: unknown[] } {
  const d = JSON_SQL[dialect];
  const where = filterSql(unresolvedOnly(f));
  const order = orderOf(o.sort, d.bytes);
  const perSeverity = SEVERITIES.map((s) => `SUM(CASE WHEN "s" = '${s}' THEN "n" ELSE 0 END) AS "${s}"`).join(", ");
  const entryJson = sessionCountJson(dialect, '"k"', '"total"', (s) => `"${s}"`, '"types"');
  const cells = `SELECT COALESCE("sessionId", '${UNASSIGNED}') AS "k", "type" AS "t", "severity" AS "s", COUNT(*) AS "n"
      FROM "Interruption" WHERE ${where.sql} GROUP BY COALESCE("sessionId", '${UNASSIGNED}'), "type", "severity"`;
  const totals = `"k", SUM("n") AS "total", ${perSeverity}`;
  const types = `${typeCountsJson(dialect, '"t"', '"s"', '"n"')} AS "types"`;
  // The whole answer: one pass over the cells. The first `limit`: the keys to keep first, then
  // the per-type counts of those keys only.
  const entries =
    o.limit === undefined
      ? `SELECT ${totals}, ${types} FROM "cells" GROUP BY "k"`
      : `SELECT "keys".*, ${types} FROM (SELECT ${totals} FROM "cells" GROUP BY "k" ORDER BY ${order} LIMIT ?) AS "keys"
         JOIN "cells" ON "cells"."k" = "keys"."k" GROUP BY "keys"."k", "total", ${SEVERITIES.map((s) => `"${s}"`).join(", ")}`;
  const sql = `WITH "cells" AS MATERIALIZED (${cells}), "entries" AS (${entries})
    SELECT '[' || COALESCE(${d.join(entryJson, order)}, '') || ']' AS "body" FROM "entries"`;
  return { sql, params: o.limit === undefined ? where.params : [...where.params, o.limit] };
}
