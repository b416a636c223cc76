// Reading interruptions: lists with keyset pagination, and the unresolved counts of SPEC §5.1.
// These are the hot read paths (the inbox, every AgentSight client), so they are plain SQL
// shaped for the window index rather than ORM queries.
import type { InterruptionFilter, Sort, Status } from "../../domain/interruptions";
import { emptySeverityCounts, SEVERITIES, type SeverityCounts } from "../../domain/interruptions";
import type { Db, DbTx } from "../client";
import type { Interruption } from "../generated/client";
import { asBigInt, asNumber, asText, readSql, type Row } from "../sql";
import { decodeTimeCursor, encodeTimeCursor } from "./timeCursor";
import { filterSql, REGRESSED_SQL, SEVERITY_RANK_SQL, unresolvedOnly } from "./filterSql";

export const UNASSIGNED = "__unassigned__";

export function toInterruption(r: Row): Interruption {
  return {
    id: String(r.id),
    sessionId: asText(r.sessionId),
    conversationId: asText(r.conversationId),
    turnId: asText(r.turnId),
    callId: asText(r.callId),
    traceId: asText(r.traceId),
    pid: asNumber(r.pid),
    agentName: asText(r.agentName),
    model: asText(r.model),
    type: String(r.type),
    severity: String(r.severity),
    occurredAtNs: asBigInt(r.occurredAtNs)!,
    lastSeenNs: asBigInt(r.lastSeenNs)!,
    occurrences: asNumber(r.occurrences)!,
    detail: String(r.detail),
    fingerprint: String(r.fingerprint),
    status: String(r.status),
    assignee: asText(r.assignee),
    acknowledgedBy: asText(r.acknowledgedBy),
    acknowledgedAtNs: asBigInt(r.acknowledgedAtNs),
    resolvedBy: asText(r.resolvedBy),
    resolvedAtNs: asBigInt(r.resolvedAtNs),
    resolutionNote: asText(r.resolutionNote),
    createdAtNs: asBigInt(r.createdAtNs)!,
    snoozeId: asText(r.snoozeId),
  };
}

/** The cursor of the page after `i` (timeCursor.ts). */
export const encodeCursor = (i: Pick<Interruption, "occurredAtNs" | "id">): string => encodeTimeCursor(i.occurredAtNs, i.id);

function orderBy(sort: Sort): string {
  const dir = sort.order === "asc" ? "ASC" : "DESC";
  const newest = '"occurredAtNs" DESC, "id" DESC';
  switch (sort.by) {
    case "time":
      return `"occurredAtNs" ${dir}, "id" ${dir}`;
    case "severity":
      return `${SEVERITY_RANK_SQL} ${dir}, ${newest}`;
    case "type":
      return `"type" ${dir}, ${newest}`;
    case "agent":
      return `"agentName" ${dir} NULLS LAST, ${newest}`; // the same order on SQLite and PostgreSQL
  }
}

export type ListOptions = { limit: number; cursor?: string; sort?: Sort; offset?: number };

/**
 * Newest first by default. With the time sort, `cursor` continues after the last row of the
 * previous page (keyset); other sorts page by `offset`.
 */
export async function listInterruptions(db: Db, f: InterruptionFilter, o: ListOptions): Promise<Flagged[]> {
  const sort = o.sort ?? { by: "time", order: "desc" };
  const where = filterSql(f);
  if (o.cursor) {
    const c = decodeTimeCursor(o.cursor);
    const cmp = sort.order === "asc" ? ">" : "<";
    where.sql += ` AND ("occurredAtNs" ${cmp} ? OR ("occurredAtNs" = ? AND "id" ${cmp} ?))`;
    where.params.push(c.ns, c.ns, c.id);
  }
  const rows = await readSql(db).all(
    `SELECT *, ${REGRESSED_SQL} AS "regressed" FROM "Interruption" WHERE ${where.sql} ORDER BY ${orderBy(sort)} LIMIT ? OFFSET ?`,
    [...where.params, o.limit, o.offset ?? 0],
  );
  return rows.map((r) => ({ ...toInterruption(r), regressed: Boolean(Number(r.regressed)) }));
}

export type Flagged = Interruption & { regressed: boolean };

/**
 * A page of `listInterruptions`; for a first page also the latest time an interruption was
 * stored when it was read (0 when none was; null for a later page), read before the page. On
 * PostgreSQL a transaction stamps what it created as it commits (stampAtCommit): one committing
 * after the read carries a later stamp, but for the instant between its last statement and its
 * commit, and for clocks of several processes that disagree.
 */
export async function readListPage(db: Db, f: InterruptionFilter, o: ListOptions): Promise<{ rows: Flagged[]; arrivedThroughNs: bigint | null }> {
  const first = !o.cursor && !o.offset;
  const arrivedThroughNs = first ? asBigInt((await readSql(db).all(`SELECT MAX("createdAtNs") AS "n" FROM "Interruption"`))[0].n) ?? 0n : null;
  return { rows: await listInterruptions(db, f, o), arrivedThroughNs };
}

/** Adds the regressed flag (SPEC §3.4) to interruptions read elsewhere, in one query. */
export async function withRegressed(db: Db, rows: Interruption[]): Promise<Flagged[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const hits = await readSql(db).all(
    `SELECT "id" FROM "Interruption" WHERE "id" IN (${ids.map(() => "?").join(", ")}) AND ${REGRESSED_SQL}`,
    ids,
  );
  const regressed = new Set(hits.map((h) => String(h.id)));
  return rows.map((r) => ({ ...r, regressed: regressed.has(r.id) }));
}

/** Ids of every interruption matching a filter (for bulk actions on "all N matching"). */
export async function matchingIds(db: Db, f: InterruptionFilter): Promise<string[]> {
  const where = filterSql(f);
  const rows = await readSql(db).all(`SELECT "id" FROM "Interruption" WHERE ${where.sql} ORDER BY "occurredAtNs" DESC`, where.params);
  return rows.map((r) => String(r.id));
}

/** Oldest first: a session's or conversation's interruptions (all of them, any time). */
export function interruptionsOf(db: DbTx, key: { sessionId: string } | { conversationId: string }, limit = 5000) {
  return db.interruption.findMany({ where: key, orderBy: [{ occurredAtNs: "asc" }, { id: "asc" }], take: limit });
}

export const getInterruption = (db: DbTx, id: string) => db.interruption.findUnique({ where: { id } });

/** Unresolved counts grouped by `columns` (plus type and severity where asked). */
async function groupCounts(db: Db, f: InterruptionFilter, columns: string[]): Promise<Row[]> {
  const where = filterSql(unresolvedOnly(f));
  const list = columns.map((c) => `"${c}"`).join(", ");
  return readSql(db).all(`SELECT ${list}, COUNT(*) AS "n" FROM "Interruption" WHERE ${where.sql} GROUP BY ${list}`, where.params);
}

export async function countUnresolved(db: Db, f: InterruptionFilter) {
  const by_severity = emptySeverityCounts();
  let total = 0;
  for (const r of await groupCounts(db, f, ["severity"])) {
    const n = Number(r.n);
    if (String(r.severity) in by_severity) by_severity[String(r.severity) as keyof SeverityCounts] += n;
    total += n;
  }
  return { total, by_severity };
}

export async function statsUnresolved(db: Db, f: InterruptionFilter) {
  return (await groupCounts(db, f, ["type", "severity"]))
    .map((r) => ({ interruption_type: String(r.type), severity: String(r.severity), count: Number(r.n) }))
    .sort((a, b) => b.count - a.count || a.interruption_type.localeCompare(b.interruption_type));
}

/**
 * Unresolved interruptions per agent (the interruption's agent name; null for none), most first:
 * the overview's top agents, with how many sessions each has them in.
 */
export async function agentCounts(db: Db, f: InterruptionFilter) {
  const where = filterSql(unresolvedOnly(f));
  const perSeverity = SEVERITIES.map((s) => `SUM(CASE WHEN "severity" = '${s}' THEN 1 ELSE 0 END) AS "${s}"`).join(", ");
  const rows = await readSql(db).all(
    `SELECT "agentName", COUNT(*) AS "total", ${perSeverity}, COUNT(DISTINCT "sessionId") AS "sessions" FROM "Interruption" WHERE ${where.sql} GROUP BY "agentName"`,
    where.params,
  );
  return rows
    .map((r) => ({
      agent_name: asText(r.agentName),
      total: Number(r.total),
      by_severity: Object.fromEntries(SEVERITIES.map((s) => [s, Number(r[s])])) as SeverityCounts,
      sessions: Number(r.sessions),
    }))
    .sort((a, b) => b.total - a.total || (a.agent_name ?? "\uffff").localeCompare(b.agent_name ?? "\uffff"));
}

type TypeCount = { interruption_type: string; severity: string; count: number };
type GroupCounts = { total: number; by_severity: SeverityCounts; types: TypeCount[] };

/** Folds (key, type, severity, n) rows into one entry per key; missing keys become __unassigned__. */
function foldCounts<E extends GroupCounts>(rows: Row[], keyOf: (r: Row) => string | null, create: (key: string, r: Row) => E): E[] {
  const groups = new Map<string, E>();
  for (const r of rows) {
    const key = keyOf(r) ?? UNASSIGNED;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = create(key, r)));
    const n = Number(r.n);
    const severity = String(r.severity);
    g.total += n;
    if (severity in g.by_severity) g.by_severity[severity as keyof SeverityCounts] += n;
    const existing = g.types.find((t) => t.interruption_type === r.type && t.severity === severity);
    if (existing) existing.count += n;
    else g.types.push({ interruption_type: String(r.type), severity, count: n });
  }
  return [...groups.values()].sort((a, b) => b.total - a.total);
}

export async function conversationCounts(db: Db, f: InterruptionFilter) {
  const rows = await groupCounts(db, f, ["conversationId", "sessionId", "type", "severity"]);
  return foldCounts(
    rows,
    (r) => asText(r.conversationId),
    (conversation_id, r) => ({
      conversation_id,
      session_id: conversation_id === UNASSIGNED ? null : asText(r.sessionId),
      total: 0,
      by_severity: emptySeverityCounts(),
      types: [],
    }),
  );
}
