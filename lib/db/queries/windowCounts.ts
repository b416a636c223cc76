// The whole session-counts answer for a time window alone (AgentSight's default query), read
// from SessionOpenCount instead of grouping the window. A session whose unresolved
// interruptions all lie inside the window (its bounds say so) is written as its row holds it,
// in the order of the table's (total, session id) index, so nothing is sorted; the few whose
// bounds cross an edge of the window, and the unassigned group, are counted exactly from
// Interruption first and merged in.
import { UNASSIGNED, UNRESOLVED_STATUSES, type InterruptionFilter } from "../../domain/interruptions";
import type { Db } from "../client";
import { JSON_SQL } from "../jsonSql";
import { readSql, transaction, type Sql } from "../sql";
import { filterSql, unresolvedOnly } from "./filterSql";
import { addCounts, countExactly, entryJson, type SessionEntry } from "./topSessions";

/** Whether `f` is nothing but a time window over the unresolved interruptions. */
export function isWindowOnly(f: InterruptionFilter): boolean {
  const statuses = f.statuses ? [...new Set(f.statuses)].sort().join() : null;
  const others = [f.agentNames, f.types, f.severities, f.sessionId, f.conversationId, f.q, f.fingerprints, f.assignees, f.regressed, f.arrivedAfterNs];
  return others.every((v) => v === undefined) && (statuses === null || statuses === [...UNRESOLVED_STATUSES].sort().join());
}

const INSIDE = `"firstNs" >= ? AND "lastNs" <= ?`;

/** The crossing sessions' entries (and the unassigned group's), counted exactly. */
async function exactEntries(sql: Sql, f: InterruptionFilter): Promise<SessionEntry[]> {
  const crossing = await sql.all(
    `SELECT "sessionId" FROM "SessionOpenCount" WHERE "lastNs" >= ? AND "firstNs" <= ? AND NOT (${INSIDE}) AND "sessionId" <> '${UNASSIGNED}'`,
    [f.startNs, f.endNs, f.startNs, f.endNs],
  );
  const keys = [UNASSIGNED, ...crossing.map((r) => String(r.sessionId))];
  const where = filterSql(unresolvedOnly(f));
  const entries = new Map<string, SessionEntry>();
  for (let i = 0; i < keys.length; i += 500) addCounts(entries, await countExactly(sql, where, keys.slice(i, i + 500)));
  return [...entries.values()];
}

async function read(sql: Sql, f: InterruptionFilter): Promise<string> {
  // merged by (total, key); the unassigned group's key is "" so that it comes first among equals
  const exact = (await exactEntries(sql, f)).map((e) => ({ total: e.total, k: e.session_id === UNASSIGNED ? "" : e.session_id, e: entryJson(e) }));
  const inside = `SELECT "total", "sessionId" AS "k", "entry" AS "e" FROM "SessionOpenCount"`;
  const params = [f.startNs, f.endNs, f.startNs, f.endNs, JSON.stringify(exact)];
  const sqlite = sql.dialect === "sqlite";
  const body = sqlite
    ? // Both arms arrive ordered (the index; a small sort) and are merged, and group_concat joins
      // the rows in the order its subquery gives them: no sort of the whole answer.
      `SELECT group_concat("e", ',') AS "body" FROM (
         ${inside} INDEXED BY "SessionOpenCount_total_sessionId_firstNs_lastNs_idx"
           WHERE "lastNs" >= ? AND "firstNs" <= ? AND ${INSIDE} AND "sessionId" <> '${UNASSIGNED}'
         UNION ALL SELECT "value" ->> '$.total', "value" ->> '$.k', "value" ->> '$.e' FROM json_each(?)
         ORDER BY 1 DESC, 2)`
    : `SELECT string_agg("e", ',' ORDER BY "total" DESC, ${JSON_SQL.postgres.bytes('"k"')}) AS "body" FROM (
         ${inside} WHERE "lastNs" >= ? AND "firstNs" <= ? AND ${INSIDE} AND "sessionId" <> '${UNASSIGNED}'
         UNION ALL SELECT "total", "k", "e" FROM json_to_recordset(?::json) AS "x"("total" int, "k" text, "e" text)) AS "all"`;
  const [row] = await sql.all(body, params);
  return `[${row.body ?? ""}]`;
}

/** The answer as JSON text; PostgreSQL reads the counts and the rows in one snapshot. */
export async function windowCountsJson(db: Db, f: InterruptionFilter): Promise<string> {
  if (readSql(db).dialect === "sqlite") return read(readSql(db), f);
  return transaction(db, async (sql) => {
    await sql.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return read(sql, f);
  });
}
