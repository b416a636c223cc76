// Interruptions over time for charts: counts per time bucket, split by severity or type.
import type { InterruptionFilter } from "../../api/contracts/params";
import type { Db } from "../client";
import { marks, readSql } from "../sql";

export type SeriesQuery = { filter: InterruptionFilter; buckets: number; groupBy: "severity" | "type" };

/** SQL for the filter's conditions (the same meaning as the Prisma filter of the list route). */
function whereSql(f: InterruptionFilter): { sql: string; params: unknown[] } {
  const parts = ['"occurredAtNs" >= ?', '"occurredAtNs" <= ?'];
  const params: unknown[] = [f.startNs, f.endNs];
  const inList = (column: string, values?: string[]) => {
    if (!values) return;
    parts.push(values.length ? `"${column}" IN (${marks(values.length)})` : "1 = 0");
    params.push(...values);
  };
  inList("agentName", f.agentNames);
  inList("type", f.types);
  inList("severity", f.severities);
  inList("status", f.statuses);
  if (f.sessionId) (parts.push('"sessionId" = ?'), params.push(f.sessionId));
  if (f.conversationId) (parts.push('"conversationId" = ?'), params.push(f.conversationId));
  if (f.q) (parts.push('("detail" LIKE ? OR "agentName" LIKE ? OR "type" LIKE ?)'), params.push(...Array(3).fill(`%${f.q}%`)));
  return { sql: parts.join(" AND "), params };
}

export async function interruptionSeries(db: Db, q: SeriesQuery) {
  const span = q.filter.endNs - q.filter.startNs + 1n;
  const width = (span + BigInt(q.buckets) - 1n) / BigInt(q.buckets);
  const where = whereSql(q.filter);
  const column = q.groupBy === "type" ? '"type"' : '"severity"';
  const rows = await readSql(db).all(
    `SELECT ("occurredAtNs" - ?) / ? AS bucket, ${column} AS "key", COUNT(*) AS n FROM "Interruption" WHERE ${where.sql} GROUP BY bucket, ${column}`,
    [q.filter.startNs, width, ...where.params],
  );
  const series = Array.from({ length: q.buckets }, (_, i) => ({ start_ns: q.filter.startNs + BigInt(i) * width, counts: {} as Record<string, number> }));
  for (const r of rows) {
    const bucket = series[Number(r.bucket)];
    if (bucket) bucket.counts[String(r.key)] = Number(r.n);
  }
  return { start_ns: q.filter.startNs, end_ns: q.filter.endNs, bucket_ns: width, group_by: q.groupBy, buckets: series };
}
