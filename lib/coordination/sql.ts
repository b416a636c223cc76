// Statements with `?` placeholders through Prisma's raw queries, on either database. They go
// through the client (not the SQLite connection underneath, as lib/db/sql.ts's hot path does)
// so that they never land inside a transaction another task has open on that connection.
import type { Db } from "../db/client";
import { dialectOf, toNumbered } from "../db/sql";

const text = (db: Db, sql: string) => (dialectOf(db) === "postgres" ? toNumbered(sql) : sql);

export function queryRows<T>(db: Db, sql: string, params: unknown[]): Promise<T[]> {
  return db.$queryRawUnsafe<T[]>(text(db, sql), ...params);
}

/** Runs a statement; resolves to the number of rows it changed. */
export function execute(db: Db, sql: string, params: unknown[]): Promise<number> {
  return db.$executeRawUnsafe(text(db, sql), ...params);
}
