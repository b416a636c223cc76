// Reading interruptions: lists with keyset pagination, and the unresolved counts of SPEC §5.1.
// These are the hot read paths (the inbox, every AgentSight client), so they are plain SQL
// shaped for the window index rather than ORM queries.
import type { InterruptionFilter, Sort, Status } from "../../domain/interruptions";
import { emptySeverityCounts, SEVERITIES, type SeverityCounts } from "../../domain/interruptions";
import type { Db, DbTx } from "../client";
import type { Interruption } from "../generated/client";
import { asBigInt, asNumber, asText, readSql, type Row } from "../sql";
import { decodeTimeCursor, encodeTimeCursor } from "./timeCursor";
import { invalid } from "../../domain/errors";
import { filterSql, isSeverityRank, REGRESSED_SQL, SEVERITY_RANK_SQL, severityRank, unresolvedOnly } from "./filterSql";

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

/**
 * The cursor of the page after `i`: for the time sort a time cursor (timeCursor.ts); for the
 * others the sort's key of `i` too ("<sort>:<key as JSON>:" before the time cursor, base64url):
 * every sort pages by keyset, so rows that leave the filter (acknowledged from the inbox) or
 * arrive between two pages neither shift the next page nor repeat in it, as offsets did.
 */
export function encodeCursor(i: Pick<Interruption, "occurredAtNs" | "id" | "severity" | "type" | "agentName">, sort: Sort = { by: "time", order: "desc" }): string {
  const time = encodeTimeCursor(i.occurredAtNs, i.id);
  return sort.by === "time" ? time : Buffer.from(`${sort.by}:${JSON.stringify(sortKeyOf(sort.by, i))}:${time}`).toString("base64url");
}

type KeyedSort = Exclude<Sort["by"], "time">;
const SORT_KEY_SQL: Record<KeyedSort, string> = { severity: SEVERITY_RANK_SQL, type: '"type"', agent: '"agentName"' };

function sortKeyOf(by: KeyedSort, i: Pick<Interruption, "severity" | "type" | "agentName">): number | string | null {
  return by === "severity" ? severityRank(i.severity) : by === "type" ? i.type : i.agentName;
}

/** A keyed cursor's parts; a 400 naming `cursor` when it is not one of this sort's. */
function decodeKeyedCursor(cursor: string, by: KeyedSort): { key: number | string | null; time: string } {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const prefix = `${by}:`;
  const end = text.lastIndexOf(":");
  let key: unknown;
  try {
    key = text.startsWith(prefix) && end > prefix.length ? JSON.parse(text.slice(prefix.length, end)) : undefined;
  } catch {
    key = undefined;
  }
  // the key is compared with the sort's column: a number PostgreSQL cannot read as a rank would be a 500
  const fits = by === "severity" ? isSeverityRank(key) : by === "type" ? typeof key === "string" : key === null || typeof key === "string";
  if (!fits) throw invalid(`cursor: not a cursor of this list's sort (${by})`);
  return { key: key as number | string | null, time: text.slice(end + 1) };
}

/** After the cursor's row in `sort`'s order (its key, then newest first, then id): SQL and params. */
function afterCursor(cursor: string, sort: Sort): { sql: string; params: unknown[] } {
  if (sort.by === "time") {
    const c = decodeTimeCursor(cursor);
    const cmp = sort.order === "asc" ? ">" : "<";
    // the bound alone first: an index range (from the OR alone each page read every row before it again)
    return { sql: `"occurredAtNs" ${cmp}= ? AND ("occurredAtNs" ${cmp} ? OR ("occurredAtNs" = ? AND "id" ${cmp} ?))`, params: [c.ns, c.ns, c.ns, c.id] };
  }
  const { key, time } = decodeKeyedCursor(cursor, sort.by);
  const c = decodeTimeCursor(time);
  const tie = `("occurredAtNs" < ? OR ("occurredAtNs" = ? AND "id" < ?))`;
  const tieParams = [c.ns, c.ns, c.id];
  const cmp = sort.order === "asc" ? ">" : "<";
  const expr = SORT_KEY_SQL[sort.by];
  // agents: no name sorts last either way (NULLS LAST)
  if (sort.by === "agent" && key === null) return { sql: `("agentName" IS NULL AND ${tie})`, params: tieParams };
  const nullsAfter = sort.by === "agent" ? ` OR "agentName" IS NULL` : "";
  return { sql: `(${expr} ${cmp} ?${nullsAfter} OR (${expr} = ? AND ${tie}))`, params: [key, key, ...tieParams] };
}

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
 * Newest first by default. `cursor` continues after the last row of the previous page (keyset,
 * every sort); `offset` still skips rows for clients that page that way.
 */
export async function listInterruptions(db: Db, f: InterruptionFilter, o: ListOptions): Promise<Flagged[]> {
  const { sql, params } = listSql(f, o);
  const rows = await readSql(db).all(sql, params);
  return rows.map((r) => ({ ...toInterruption(r), regressed: Boolean(Number(r.regressed)) }));
}

/** The statement of a page of `listInterruptions` (tests read its plan). */
export function listSql(f: InterruptionFilter, o: ListOptions): { sql: string; params: unknown[] } {
  const sort = o.sort ?? { by: "time", order: "desc" };
  const where = filterSql(f);
  if (o.cursor) {
    const after = afterCursor(o.cursor, sort);
    where.sql += ` AND ${after.sql}`;
    where.params.push(...after.params);
  }
  // "regressed" (a lookup per row) for the page's rows only: in one statement with a sort that no
  // index gives (severity, type, agent) SQLite computed it for every row of the window before
  // sorting (a 66,000-row window: 28 ms against 17)
  return {
    sql: `SELECT *, ${REGRESSED_SQL} AS "regressed" FROM (SELECT * FROM "Interruption" WHERE ${where.sql} ORDER BY ${orderBy(sort)} LIMIT ? OFFSET ?) AS "Interruption" ORDER BY ${orderBy(sort)}`,
    params: [...where.params, o.limit, o.offset ?? 0],
  };
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

/** Oldest first: a page of a session's or conversation's interruptions (any time), after `cursor` (encodeTimeCursor of the last one). */
export async function interruptionsOf(db: Db, key: { sessionId: string } | { conversationId: string }, page: { limit: number; cursor?: string }): Promise<Flagged[]> {
  const after = page.cursor ? decodeTimeCursor(page.cursor) : null;
  const rows = await db.interruption.findMany({
    where: after ? { ...key, occurredAtNs: { gte: after.ns }, OR: [{ occurredAtNs: { gt: after.ns } }, { occurredAtNs: after.ns, id: { gt: after.id } }] } : key,
    orderBy: [{ occurredAtNs: "asc" }, { id: "asc" }],
    take: page.limit,
  });
  return withRegressed(db, rows);
}

/** The cursor of the page after `i` in time order (either direction). */
export const timeCursorOf = (i: Pick<Interruption, "occurredAtNs" | "id">): string => encodeTimeCursor(i.occurredAtNs, i.id);

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

const codeOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Folds (key, type, severity, n) rows into one entry per key; missing keys become __unassigned__.
 * In the order session-counts has, whatever order the database grouped in (SQLite's and
 * PostgreSQL's differ): most first, ties by key; types by type, then severity.
 */
export function foldCounts<E extends GroupCounts>(rows: Row[], keyOf: (r: Row) => string | null, create: (key: string, r: Row) => E): E[] {
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
  for (const g of groups.values()) g.types.sort((a, b) => codeOrder(a.interruption_type, b.interruption_type) || codeOrder(a.severity, b.severity));
  return [...groups].sort(([ka, a], [kb, b]) => b.total - a.total || codeOrder(ka, kb)).map(([, g]) => g);
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
