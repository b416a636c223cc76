// Deletes in batches (used by sweep.ts). Each batch is one short transaction, so the rows it
// locks are held for milliseconds while ingest goes on.
//
// On PostgreSQL 15+ a batch also publishes its table statistics as it commits
// (pg_stat_force_next_flush). The size cap reads those statistics (postgresSpace.ts): a backend
// otherwise holds its counts for up to 10 s, and counts of a delete that arrive after the VACUUM
// that removed its rows make those rows look present again (as dead) — the next sweep would trim
// as much again. Before 15 there is no such function and the counts can lag that way.
import type { Db, DbTx } from "../db/client";
import { quote } from "../db/multiRow";
import { dialectOf, FLUSH_STATS_SQL, flushesStats, lockKeys, readSql, toNumbered, transaction, type Sql } from "../db/sql";

// Under 999: Prisma refuses a deleteMany with more bound ids than SQLite's historical limit (P2029).
export const BATCH = 500;

/** Repeats `step` (one batch in one transaction, returning rows deleted) until a batch comes up short. */
export async function inBatches(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < BATCH) return total;
  }
}

/** `?` placeholders as the database wants them. */
export const sqlOf = (db: Db, sql: string) => (dialectOf(db) === "postgres" ? toNumbered(sql) : sql);

/**
 * Runs one batch, in a transaction when it has several statements (`atomic`), holds locks
 * (`lock`: keys ingest locks too, `lockKeys`), or runs on PostgreSQL: there a transaction is
 * run again when it loses a deadlock (a batch of deletes takes its rows in index order, ingest
 * and triage in theirs), where a lone statement's failure failed the sweep.
 */
export async function batch<T>(db: Db, fn: (tx: DbTx, sql: Sql) => Promise<T>, options: { atomic?: boolean; lock?: string[] } = {}): Promise<T> {
  const flush = await flushesStats(db);
  const lock = options.lock ?? [];
  if (dialectOf(db) === "sqlite" && !options.atomic && !lock.length) return fn(db, readSql(db));
  return transaction(db, async (sql, tx) => {
    await lockKeys(sql, lock);
    const out = await fn(tx, sql);
    if (flush) await tx.$queryRawUnsafe(FLUSH_STATS_SQL);
    return out;
  });
}

/**
 * Deletes up to BATCH rows of `table` that match `where` (SQL with `?` placeholders), the
 * `orderBy` first, in one statement (no round trip for the ids); returns how many went.
 * `where` is asked again of the rows themselves: on PostgreSQL a row another transaction changed
 * while the delete waited for it is judged as committed only by the conditions on the deleted
 * table, not by the subquery that chose it (a reopened interruption is not deleted as resolved).
 */
export function deleteBatch(db: Db, table: string, where: string, params: unknown[], orderBy = ""): Promise<number> {
  const t = quote(table);
  const sql = `DELETE FROM ${t} WHERE "id" IN (SELECT "id" FROM ${t} WHERE ${where}${orderBy ? ` ORDER BY ${orderBy}` : ""} LIMIT ${BATCH}) AND (${where})`;
  return batch(db, (tx) => tx.$executeRawUnsafe(sqlOf(db, sql), ...params, ...params));
}
