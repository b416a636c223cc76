// SessionOpenCount and SessionOpenCell compared with a recount of Interruption written here,
// independently of the triggers and of the import's bulk counting.
import { expect } from "vitest";
import type { Db } from "@/lib/db/client";
import { foldOpenCounts } from "@/lib/db/openCounts";
import { readSql } from "@/lib/db/sql";

export type Counts = Record<string, number[]>;

const asCounts = (rows: Array<Record<string, unknown>>): Counts =>
  Object.fromEntries(rows.map((r) => [String(r.sessionId), ["total", "critical", "high", "medium", "low"].map((c) => Number(r[c]))]));

/** The two tables as their readers see them: the logged changes folded in first. */
export async function storedOpenCounts(db: Db): Promise<Counts> {
  await foldOpenCounts(db);
  return asCounts(await readSql(db).all(`SELECT * FROM "SessionOpenCount"`));
}

/** Compares both tables with a recount of Interruption; the counts per session. */
export async function expectOpenCountsExact(db: Db): Promise<Counts> {
  const sql = readSql(db);
  const now = await storedOpenCounts(db);
  const open = `"status" IN ('open', 'acknowledged')`;
  const key = `COALESCE("sessionId", '__unassigned__')`;
  const recount = asCounts(
    await sql.all(
      `SELECT ${key} AS "sessionId", COUNT(*) AS "total",
         SUM(CASE WHEN "severity" = 'critical' THEN 1 ELSE 0 END) AS "critical", SUM(CASE WHEN "severity" = 'high' THEN 1 ELSE 0 END) AS "high",
         SUM(CASE WHEN "severity" = 'medium' THEN 1 ELSE 0 END) AS "medium", SUM(CASE WHEN "severity" = 'low' THEN 1 ELSE 0 END) AS "low"
       FROM "Interruption" WHERE ${open} GROUP BY ${key}`,
    ),
  );
  expect(now).toEqual(recount);
  // the cells, the entry written from them, and bounds that hold every unresolved interruption
  const cells = await sql.all(`SELECT ${key} AS "k", "type", "severity", COUNT(*) AS "n", MIN("occurredAtNs") AS "first", MAX("occurredAtNs") AS "last" FROM "Interruption" WHERE ${open} GROUP BY ${key}, "type", "severity"`);
  const storedCells = await sql.all(`SELECT "sessionId" AS "k", "type", "severity", "count" AS "n" FROM "SessionOpenCell"`);
  const cellKey = (c: Record<string, unknown>) => `${c.k}|${c.type}|${c.severity}|${Number(c.n)}`;
  expect(storedCells.map(cellKey).sort()).toEqual(cells.map(cellKey).sort());
  const rows = new Map((await sql.all(`SELECT * FROM "SessionOpenCount"`)).map((r) => [String(r.sessionId), r]));
  for (const [k, r] of rows) {
    const mine = cells.filter((c) => c.k === k).sort((a, b) => Buffer.compare(Buffer.from(`${a.type}\u0000${a.severity}`), Buffer.from(`${b.type}\u0000${b.severity}`)));
    const types = mine.map((c) => ({ interruption_type: c.type, severity: c.severity, count: Number(c.n) }));
    const bySeverity = { critical: Number(r.critical), high: Number(r.high), medium: Number(r.medium), low: Number(r.low) };
    expect(String(r.entry)).toBe(JSON.stringify({ session_id: k, total: Number(r.total), by_severity: bySeverity, types }));
    expect(BigInt(r.firstNs as bigint)).toBeLessThanOrEqual(mine.reduce((m, c) => (BigInt(c.first as bigint) < m ? BigInt(c.first as bigint) : m), BigInt(r.lastNs as bigint)));
    expect(BigInt(r.lastNs as bigint)).toBeGreaterThanOrEqual(mine.reduce((m, c) => (BigInt(c.last as bigint) > m ? BigInt(c.last as bigint) : m), 0n));
  }
  return now;
}

