// Unresolved interruptions per session (SPEC §5.1 session-counts). The whole answer for a time
// window alone (AgentSight's default query) comes from SessionOpenCount (windowCounts.ts); with
// any other filter it is written as JSON by the database in one statement (sessionCountsSql.ts).
// The first `limit` sessions — what the dashboard asks for — are found by walking the
// per-session bounds (topSessions.ts) instead of grouping the whole window.
import type { CountSort, InterruptionFilter } from "../../domain/interruptions";
import type { Db } from "../client";
import { foldOpenCounts } from "../openCounts";
import { dialectOf, readSql } from "../sql";
import { sessionCountsSql } from "./sessionCountsSql";
import { entryJson, topSessions } from "./topSessions";
import { isWindowOnly, windowCountsJson } from "./windowCounts";

export type SessionCountsOptions = {
  /** only the first `limit` sessions of the order */
  limit?: number;
  /**
   * Without: AgentSight's order (most interruptions first, ties by session id, the unassigned
   * group first). `total`: most interruptions first, ties by the worse severities. `severity`:
   * the worst severity first (more critical, then more high, …), ties by total.
   */
  sort?: CountSort;
};

/** The whole answer as written by one SQL statement (also the fallback of the walk). */
async function groupedJson(db: Db, f: InterruptionFilter, o: SessionCountsOptions): Promise<string> {
  const { sql, params } = sessionCountsSql(dialectOf(db), f, o);
  const [row] = await readSql(db).all(sql, params);
  return String(row.body);
}

/** The session-counts answer as JSON text (an array, possibly empty). */
export async function sessionCountsJson(db: Db, f: InterruptionFilter, o: SessionCountsOptions = {}): Promise<string> {
  // SessionOpenCount's rows answer a time window alone in AgentSight's order, not in another
  const fromRows = isWindowOnly(f) && o.sort === undefined;
  if (o.limit !== undefined || fromRows) await foldOpenCounts(db); // both read SessionOpenCount
  if (o.limit === undefined) return fromRows ? windowCountsJson(db, f) : groupedJson(db, f, o);
  const top = await topSessions(db, f, { limit: o.limit, sort: o.sort });
  return top ? `[${top.map(entryJson).join(",")}]` : groupedJson(db, f, o);
}
