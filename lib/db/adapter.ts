import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { withoutNul } from "./postgresSql";
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

// PostgreSQL text cannot hold U+0000, which an agent's output or a hostile request can: a
// parameter holding one is refused (22021), and the request answered 500 — a sign-in form's
// email, a path parameter. Every parameter of every query on these connections (Prisma's; the
// ingest SQL inlines its values through withoutNul) has it as U+FFFD instead.
const nulSafe = (v: unknown): unknown => (typeof v === "string" ? withoutNul(v) : Array.isArray(v) ? v.map(nulSafe) : v);

function withNulSafeValues(args: unknown[]): void {
  const config = args[0] as { values?: unknown } | null;
  if (config && typeof config === "object" && Array.isArray(config.values)) config.values = config.values.map(nulSafe);
  if (Array.isArray(args[1])) args[1] = args[1].map(nulSafe);
}

/** pg's client with two fixes: catalog types reported as text, and no U+0000 in parameters. */
class CatalogTypesAsTextClient extends pg.Client {
  // pg's query() has many overloads (promise or callback); both paths go through the same fixes.
  query(...args: unknown[]): never {
    withNulSafeValues(args);
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
