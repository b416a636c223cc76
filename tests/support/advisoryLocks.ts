// Waiting on PostgreSQL's advisory and row locks, as tests of lock holders and waiters see it.
import type { Db } from "@/lib/db/client";

/**
 * Advisory locks some transaction of this database is waiting for, as PostgreSQL shows them
 * (pg_locks shows every database's: other test files run beside this one).
 */
export const waitingAdvisoryLocks = async (db: Db): Promise<number> =>
  Number(
    (await db.$queryRawUnsafe<{ n: bigint }[]>(
      `SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND "database" = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    ))[0].n,
  );

/** Transactions of this database waiting for another's row lock (a transaction id), as PostgreSQL shows them. */
export const waitingRowLocks = async (db: Db): Promise<number> =>
  Number(
    (await db.$queryRawUnsafe<{ n: bigint }[]>(
      `SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`,
    ))[0].n,
  );
