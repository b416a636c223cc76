import { PrismaClient } from "./generated/client";
import { PrismaClient as PostgresPrismaClient } from "./generated-pg/client";
import { createAdapterFactory } from "./adapter";
import { registerDialect, registerPostgresPool, registerSqliteClient } from "./sql";
import { databaseUrl, providerOf } from "./url";

// Both generated clients come from the same models, so they share one API; the SQLite client's
// types stand for both.
export type Db = PrismaClient;
/** A client or an interactive transaction: what query functions take. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export function createDb(url = databaseUrl()): Db {
  if (providerOf(url) === "postgresql") {
    let pg: Db | null = null;
    pg = new PostgresPrismaClient({ adapter: createAdapterFactory(url, { postgres: (pool) => pg && registerPostgresPool(pg, pool) }) }) as unknown as Db;
    registerDialect(pg, "postgres");
    return pg;
  }
  let db: Db | null = null;
  db = new PrismaClient({
    adapter: createAdapterFactory(url, {
      sqlite: (client) => {
        // WAL commits need no fsync of their own (NORMAL); a larger page cache and fewer, larger
        // checkpoints keep random-key index inserts (content-hash ids) off the disk path.
        client.pragma("synchronous = NORMAL");
        client.pragma("cache_size = -65536");
        client.pragma("wal_autocheckpoint = 4000");
        if (db) registerSqliteClient(db, client);
      },
    }),
  });
  registerDialect(db, "sqlite");
  return db;
}

const globalForDb = globalThis as unknown as { sightdeskDb?: Db };

/** The process-wide client (kept across hot reloads in development). */
export function db(): Db {
  globalForDb.sightdeskDb ??= createDb();
  return globalForDb.sightdeskDb;
}
