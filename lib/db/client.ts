import { PrismaClient } from "./generated/client";
import { createAdapterFactory } from "./adapter";
import { registerSqliteClient } from "./sql";
import { databaseUrl } from "./url";

export type Db = PrismaClient;
/** A client or an interactive transaction: what query functions take. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export function createDb(url = databaseUrl()): Db {
  let db: Db | null = null;
  db = new PrismaClient({
    adapter: createAdapterFactory(url, (client) => {
      // WAL commits need no fsync of their own (NORMAL); a larger page cache and fewer, larger
      // checkpoints keep random-key index inserts (content-hash ids) off the disk path.
      client.pragma("synchronous = NORMAL");
      client.pragma("cache_size = -65536");
      client.pragma("wal_autocheckpoint = 4000");
      if (db) registerSqliteClient(db, client);
    }),
  });
  return db;
}

const globalForDb = globalThis as unknown as { sightdeskDb?: Db };

/** The process-wide client (kept across hot reloads in development). */
export function db(): Db {
  globalForDb.sightdeskDb ??= createDb();
  return globalForDb.sightdeskDb;
}
