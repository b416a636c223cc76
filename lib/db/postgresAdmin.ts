// Databases on a PostgreSQL server, as migrate (first start), the tests (a database per test
// file) and the benchmarks create and drop them. CREATE/DROP DATABASE run on the server's
// maintenance database `postgres`.
import pg from "pg";
import { quote } from "./multiRow";

/** The same server URL, naming another database. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

export const databaseName = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1)) || "postgres";

/** Runs `fn` on a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const onServer = (url: string, sql: string) => withClient(withDatabase(url, "postgres"), (c) => c.query(sql)).then(() => undefined);

/** Creates the database `url` names (a copy of `template` when given). */
export const createDatabase = (url: string, template?: string) =>
  onServer(url, `CREATE DATABASE ${quote(databaseName(url))}${template ? ` TEMPLATE ${quote(template)}` : ""}`);

/** Drops the database `url` names, closing its connections (PostgreSQL 13+). */
export const dropDatabase = (url: string) => onServer(url, `DROP DATABASE IF EXISTS ${quote(databaseName(url))} WITH (FORCE)`);
