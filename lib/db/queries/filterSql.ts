// The interruption list filter as SQL (shared by lists, counts and time series), written for the
// window index: the time range first, then the columns it carries.
import type { InterruptionFilter } from "../../api/contracts/params";
import { marks } from "../sql";

export type SqlWhere = { sql: string; params: unknown[] };

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
  if (f.sessionId) {
    parts.push('"sessionId" = ?');
    params.push(f.sessionId);
  }
  if (f.conversationId) {
    parts.push('"conversationId" = ?');
    params.push(f.conversationId);
  }
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    parts.push(`("id" = ? OR "callId" = ? OR "traceId" = ? OR "type" LIKE ? ESCAPE '\\' OR "agentName" LIKE ? ESCAPE '\\' OR "detail" LIKE ? ESCAPE '\\')`);
    params.push(f.q, f.q, f.q, like, like, like);
  }
  return { sql: parts.join(" AND "), params };
}
