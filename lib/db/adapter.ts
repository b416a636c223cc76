import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { sqliteFilePath } from "./url";

/** The driver adapter factory for a database URL (SQLite now; PostgreSQL comes with issue 6). */
export function createAdapterFactory(url: string) {
  const file = sqliteFilePath(url);
  if (!file) throw new Error(`DATABASE_URL: unsupported database URL (expected file:…): ${url.split(":")[0]}:…`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return new PrismaBetterSQLite3({ url: file, timeout: 10_000 });
}
