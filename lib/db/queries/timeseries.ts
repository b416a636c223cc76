// Interruptions over time for charts: counts per time bucket, split by severity or type.
import type { InterruptionFilter } from "../../domain/interruptions";
import type { Db } from "../client";
import { bucketWidthNs } from "../../domain/time";
import { readSql } from "../sql";
import { filterSql } from "./filterSql";

export type SeriesQuery = { filter: InterruptionFilter; buckets: number; groupBy: "severity" | "type" };

export async function interruptionSeries(db: Db, q: SeriesQuery) {
  const width = bucketWidthNs(q.filter.startNs, q.filter.endNs, q.buckets);
  const where = filterSql(q.filter);
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
