import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { preparePrivateSqliteFile } from "./privateFiles";
import { providerOf, sqliteFilePath } from "./url";

type AdapterFactory = PrismaBetterSQLite3 | PrismaPg;

/** What Prisma connects through, for the plain-SQL hot path: the SQLite connection, or the PostgreSQL pool. */
export type OnConnect = { sqlite?: (client: BetterSqlite3.Database) => void; postgres?: (pool: pg.Pool) => void };

/**
 * The driver adapter factory for a database URL (a `file:` SQLite path or a PostgreSQL URL).
 * `onConnect` is told what each connect of Prisma's opened.
 */
export function createAdapterFactory(url: string, onConnect: OnConnect = {}): AdapterFactory {
  if (providerOf(url) === "postgresql") return observeConnect(postgresFactory(url), (adapter) => onConnect.postgres?.(adapter.underlyingDriver() as pg.Pool));
  const file = sqliteFilePath(url)!;
  preparePrivateSqliteFile(file); // 0600, and so its -wal and -shm files (0700 folder when made here)
  const factory = new PrismaBetterSQLite3({ url: file, timeout: 10_000 });
  return observeConnect(factory, (adapter) => onConnect.sqlite?.((adapter as unknown as { client: BetterSqlite3.Database }).client));
}

function observeConnect<F extends AdapterFactory>(factory: F, seen: (adapter: { underlyingDriver(): unknown }) => void): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    seen(adapter as unknown as { underlyingDriver(): unknown });
    return adapter;
  };
  return factory;
}

/** Connections per server process (SIGHTDESK_PG_POOL_SIZE): Prisma's queries and the ingest transactions share them. */
function postgresFactory(url: string): PrismaPg {
  const max = Number(process.env.SIGHTDESK_PG_POOL_SIZE) || 10;
  return new PrismaPg({ connectionString: url, max, Client: CatalogTypesAsTextClient });
}

// prisma/orm#27403: the migration engine cannot read the catalog types `name` and `"char"` (nor
// their arrays) that its introspection queries return. Reporting them as text fixes migrations;
// the app's own queries never select them, so reporting them as text changes nothing else.
const AS_TEXT: Record<number, number> = { 19: 25, 18: 25, 1003: 1009, 1002: 1009 };

type Fields = { fields?: { dataTypeID: number }[] };
function reportCatalogTypesAsText<T>(result: T): T {
  for (const field of (result as Fields)?.fields ?? []) field.dataTypeID = AS_TEXT[field.dataTypeID] ?? field.dataTypeID;
  return result;
}

class CatalogTypesAsTextClient extends pg.Client {
  // pg's query() has many overloads (promise or callback); both paths go through the same fix.
  query(...args: unknown[]): never {
    const last = args[args.length - 1];
    if (typeof last === "function") {
      const callback = last as (err: Error | null, res?: unknown) => void;
      args[args.length - 1] = (err: Error | null, res?: unknown) => callback(err, err ? res : reportCatalogTypesAsText(res));
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    return (result instanceof Promise ? result.then(reportCatalogTypesAsText) : result) as never;
  }
}
