import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type BetterSqlite3 from "better-sqlite3";
import { sqliteFilePath } from "./url";

type SqliteFactory = InstanceType<typeof PrismaBetterSQLite3>;

/**
 * The driver adapter factory for a database URL (SQLite now; PostgreSQL comes with issue 6).
 * `onConnect` receives the SQLite connection Prisma opens, for the plain-SQL hot path.
 */
export function createAdapterFactory(url: string, onConnect?: (client: BetterSqlite3.Database) => void): SqliteFactory {
  const file = sqliteFilePath(url);
  if (!file) throw new Error(`DATABASE_URL: unsupported database URL (expected file:…): ${url.split(":")[0]}:…`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const factory = new PrismaBetterSQLite3({ url: file, timeout: 10_000 });
  if (!onConnect) return factory;
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    onConnect((adapter as unknown as { client: BetterSqlite3.Database }).client);
    return adapter;
  };
  return factory;
}
