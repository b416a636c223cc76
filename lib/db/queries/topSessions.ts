// The first `limit` sessions of session-counts without grouping the whole window. Every
// session's row in SessionOpenCount (unresolved, any time) bounds what any filter can count in
// it, severity by severity. Walking those rows largest first, and counting exactly (with the
// filter, from Interruption) only the sessions walked, the answer is complete once the next
// row's bound ranks below the last session kept: nothing further down can rank higher.
import { SEVERITIES, UNASSIGNED, type CountSort, type InterruptionFilter } from "../../domain/interruptions";
import type { Db } from "../client";
import { marks, readSql, transaction, type Row, type Sql } from "../sql";
import { filterSql, unresolvedOnly, type SqlWhere } from "./filterSql";

type TypeCount = { interruption_type: string; severity: string; count: number };
export type SessionEntry = { session_id: string; total: number; by_severity: Record<(typeof SEVERITIES)[number], number>; types: TypeCount[] };

/** The ranked numbers of an entry for a sort, most significant first (compared descending). */
function rankOf(sort: CountSort | undefined, c: { total: number } & Record<(typeof SEVERITIES)[number], number>): number[] {
  const severities = SEVERITIES.map((s) => c[s]);
  switch (sort) {
    case undefined:
      return [c.total];
    case "total":
      return [c.total, ...severities];
    case "severity":
      return [...severities, c.total];
  }
}

const compareRanks = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i] - a[i];
  return 0;
};

/** Text in UTF-8 byte order, as SQLite (and PostgreSQL's "C" collation) compare it. */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // below the surrogates UTF-16 order is code point order is UTF-8 byte order
    if (x < 0xd800 && y < 0xd800) return x - y;
    return Buffer.compare(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
  }
  return a.length - b.length;
}

/** The answer's order (sessionCountsSql.ts orders by the same rules): rank, the unassigned group, then the session id. */
export function compareEntries(sort: CountSort | undefined) {
  return (a: SessionEntry, b: SessionEntry) =>
    compareRanks(rankOf(sort, { total: a.total, ...a.by_severity }), rankOf(sort, { total: b.total, ...b.by_severity })) ||
    Number(b.session_id === UNASSIGNED) - Number(a.session_id === UNASSIGNED) ||
    compareBytes(a.session_id, b.session_id);
}

/** The bound rows in rank order (the indexes on SessionOpenCount give this order). */
function boundsSql(sort: CountSort | undefined): string {
  const severities = SEVERITIES.map((s) => `"${s}" DESC`).join(", ");
  // the session id last: pages of a walk must neither overlap nor skip rows that tie
  const order = sort === "severity" ? `${severities}, "total" DESC, "sessionId"` : `"total" DESC, ${severities}, "sessionId"`;
  return `SELECT "sessionId", "total", ${SEVERITIES.map((s) => `"${s}"`).join(", ")} FROM "SessionOpenCount" ORDER BY ${order} LIMIT ? OFFSET ?`;
}

/** Exact counts, with the filter, of the sessions `keys` (the unassigned key stands for no session). */
export async function countExactly(sql: Sql, where: SqlWhere, keys: string[]): Promise<Row[]> {
  // The (sessionId, occurredAtNs) index finds a few sessions' rows; SQLite's planner, without
  // statistics, would rather scan the window.
  const index = sql.dialect === "sqlite" ? ' INDEXED BY "Interruption_sessionId_occurredAtNs_idx"' : "";
  const rows = await sql.all(
    `SELECT COALESCE("sessionId", '${UNASSIGNED}') AS "k", "type" AS "t", "severity" AS "s", COUNT(*) AS "n" FROM "Interruption"${index}
     WHERE ${where.sql} AND "sessionId" IN (${marks(keys.length)}) GROUP BY COALESCE("sessionId", '${UNASSIGNED}'), "type", "severity"`,
    [...where.params, ...keys],
  );
  if (keys.includes(UNASSIGNED)) {
    rows.push(
      ...(await sql.all(
        `SELECT '${UNASSIGNED}' AS "k", "type" AS "t", "severity" AS "s", COUNT(*) AS "n" FROM "Interruption"${index}
         WHERE ${where.sql} AND "sessionId" IS NULL GROUP BY "type", "severity"`,
        where.params,
      )),
    );
  }
  return rows;
}

export function addCounts(entries: Map<string, SessionEntry>, rows: Row[]): void {
  for (const r of rows) {
    const k = String(r.k);
    let e = entries.get(k);
    if (!e) entries.set(k, (e = { session_id: k, total: 0, by_severity: Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as SessionEntry["by_severity"], types: [] }));
    const n = Number(r.n);
    const severity = String(r.s);
    e.total += n;
    if (severity in e.by_severity) e.by_severity[severity as keyof SessionEntry["by_severity"]] += n;
    // a literal "__unassigned__" session and interruptions without one share the key
    const same = e.types.find((t) => t.interruption_type === r.t && t.severity === severity);
    if (same) same.count += n;
    else e.types.push({ interruption_type: String(r.t), severity, count: n });
  }
}

export type TopSessionsOptions = { limit: number; sort?: CountSort; budget?: number };

/**
 * The first `limit` entries, or null when more than `budget` sessions (default max(10,000,
 * 20 × limit)) had to be walked: then grouping the window is the cheaper way.
 */
export async function topSessions(db: Db, f: InterruptionFilter, o: TopSessionsOptions): Promise<SessionEntry[] | null> {
  const where = filterSql(unresolvedOnly(f));
  const budget = o.budget ?? Math.max(10_000, 20 * o.limit);
  const chunk = Math.min(1000, Math.max(64, 4 * o.limit));
  const order = compareEntries(o.sort);
  const walk = async (sql: Sql) => {
    const entries = new Map<string, SessionEntry>();
    for (let offset = 0; offset < budget; offset += chunk) {
      const bounds = await sql.all(boundsSql(o.sort), [chunk, offset]);
      if (!bounds.length) break;
      addCounts(entries, await countExactly(sql, where, bounds.map((b) => String(b.sessionId))));
      const kept = [...entries.values()].sort(order);
      const last = bounds[bounds.length - 1];
      const lastBound = rankOf(o.sort, { total: Number(last.total), ...Object.fromEntries(SEVERITIES.map((s) => [s, Number(last[s])])) } as Parameters<typeof rankOf>[1]);
      const lastKept = kept[o.limit - 1];
      const done = bounds.length < chunk || (lastKept && compareRanks(lastBound, rankOf(o.sort, { total: lastKept.total, ...lastKept.by_severity })) > 0);
      if (done) return kept.slice(0, o.limit);
    }
    return null;
  };
  // SQLite: one connection, and a trigger updates a bound in the statement that changes what it
  // bounds. PostgreSQL: one snapshot for the bounds and the counts, or a bound read before a
  // commit could be exceeded by counts read after it.
  if (readSql(db).dialect === "sqlite") return walk(readSql(db));
  return transaction(db, async (sql) => {
    await sql.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return walk(sql);
  });
}

/** An entry as JSON, byte for byte as the database writes it (types in byte order). */
export function entryJson(e: SessionEntry): string {
  const types = [...e.types].sort((a, b) => compareBytes(a.interruption_type, b.interruption_type) || compareBytes(a.severity, b.severity));
  return JSON.stringify({ session_id: e.session_id, total: e.total, by_severity: e.by_severity, types });
}
