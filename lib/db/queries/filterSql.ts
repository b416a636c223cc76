// The interruption list filter as SQL (shared by lists, counts and time series), written for the
// window index: the time range first, then the columns it carries.
import { SEVERITY_WEIGHT, UNRESOLVED_STATUSES, type InterruptionFilter } from "../../domain/interruptions";
import { marks } from "../sql";

export type SqlWhere = { sql: string; params: unknown[] };

/**
 * Severity as its weight (lib/domain's SEVERITY_WEIGHT: critical 4 … low 1), for sorting and
 * "worst of" aggregates; unknown values weigh as the least severe.
 */
const LEAST_WEIGHT = Math.min(...Object.values(SEVERITY_WEIGHT));

export const SEVERITY_RANK_SQL = severityRankSql();

function severityRankSql(): string {
  const byWeight = Object.entries(SEVERITY_WEIGHT).filter(([, w]) => w !== LEAST_WEIGHT).sort(([, a], [, b]) => b - a);
  return `CASE "severity" ${byWeight.map(([s, w]) => `WHEN '${s}' THEN ${w}`).join(" ")} ELSE ${LEAST_WEIGHT} END`;
}

/** A severity's weight as SEVERITY_RANK_SQL gives it (unknown values weigh as the least severe). */
export const severityRank = (severity: string): number =>
  Object.hasOwn(SEVERITY_WEIGHT, severity) ? SEVERITY_WEIGHT[severity as keyof typeof SEVERITY_WEIGHT] : LEAST_WEIGHT;

/** Whether `n` is a weight SEVERITY_RANK_SQL can give (a cursor's key is compared with it). */
export const isSeverityRank = (n: unknown): n is number => typeof n === "number" && Object.values(SEVERITY_WEIGHT).includes(n);

/**
 * An interruption is regressed when another one of its fingerprint had been resolved before it
 * was detected: the problem was closed and fired again (SPEC §3.4).
 */
export const REGRESSED_SQL = `EXISTS (SELECT 1 FROM "Interruption" AS "earlier" WHERE "earlier"."fingerprint" = "Interruption"."fingerprint" AND "earlier"."status" = 'resolved' AND "earlier"."resolvedAtNs" < "Interruption"."createdAtNs" AND "earlier"."id" <> "Interruption"."id")`;

/** Unresolved only (the count routes), whatever status filter was asked for. */
export function unresolvedOnly(f: InterruptionFilter): InterruptionFilter {
  return { ...f, statuses: (f.statuses ?? [...UNRESOLVED_STATUSES]).filter((s) => UNRESOLVED_STATUSES.includes(s)) };
}

export function filterSql(f: InterruptionFilter): SqlWhere {
  const parts = ['"occurredAtNs" >= ?', '"occurredAtNs" <= ?'];
  const params: unknown[] = [f.startNs, f.endNs];
  const inList = (column: string, values?: readonly string[]) => {
    if (!values) return;
    parts.push(values.length ? `"${column}" IN (${marks(values.length)})` : "1 = 0");
    params.push(...values);
  };
  inList("status", f.statuses);
  inList("severity", f.severities);
  inList("type", f.types);
  inList("agentName", f.agentNames);
  inList("fingerprint", f.fingerprints);
  if (f.sessionId) {
    parts.push('"sessionId" = ?');
    params.push(f.sessionId);
  }
  if (f.conversationId) {
    parts.push('"conversationId" = ?');
    params.push(f.conversationId);
  }
  if (f.assignees?.length) {
    const named = f.assignees.filter((a) => a !== "none");
    const terms = [...(named.length ? [`"assignee" IN (${marks(named.length)})`] : []), ...(f.assignees.includes("none") ? ['"assignee" IS NULL'] : [])];
    parts.push(`(${terms.join(" OR ")})`);
    params.push(...named);
  }
  if (f.regressed !== undefined) parts.push(`${f.regressed ? "" : "NOT "}${REGRESSED_SQL}`);
  if (f.arrivedAfterNs !== undefined) {
    parts.push('"createdAtNs" > ?');
    params.push(f.arrivedAfterNs);
  }
  if (f.q) {
    // LOWER on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not
    const like = `%${f.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const contains = (column: string) => `LOWER(${column}) LIKE ? ESCAPE '\\'`;
    parts.push(`("id" = ? OR "callId" = ? OR "traceId" = ? OR ${contains('"type"')} OR ${contains('"agentName"')} OR ${contains('"detail"')})`);
    params.push(f.q, f.q, f.q, like, like, like);
  }
  return { sql: parts.join(" AND "), params };
}
