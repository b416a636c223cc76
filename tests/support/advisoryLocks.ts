// Waiting on PostgreSQL's advisory locks, as tests of lock holders and waiters see it.
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
