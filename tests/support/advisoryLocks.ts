// Waiting on PostgreSQL's advisory locks, as tests of lock holders and waiters see it.
import type { Db } from "@/lib/db/client";

/** Advisory locks some transaction is waiting for, as PostgreSQL shows them. */
export const waitingAdvisoryLocks = async (db: Db): Promise<number> =>
  Number((await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`))[0].n);
