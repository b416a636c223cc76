// Plain SQL inside a transaction, for the ingest hot path. On SQLite the statements run directly
// on the connection Prisma's transaction holds (same transaction, cached prepared statements, no
// per-query ORM overhead). On PostgreSQL, `sqlTransaction` runs on a connection of Prisma's pool,
// its statements sent in as few round trips as possible (postgresSql.ts); `transaction`, which
// also hands out Prisma's transaction client, sends them through Prisma's raw queries.
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { Db, DbTx } from "./client";
import { PostgresSql, postgresTypes, withoutNul } from "./postgresSql";

export type Row = Record<string, unknown>;

export interface Sql {
  readonly dialect: "sqlite" | "postgres";
  /**
   * PostgreSQL: this transaction runs again because the lock table was full; its `lockKeys`
   * takes the one key that stands for every key (and waits for every other holder to finish).
   */
  readonly locksEverything?: boolean;
  all(sql: string, params?: unknown[]): Promise<Row[]>;
  run(sql: string, params?: unknown[]): Promise<void>;
  /** Runs one statement once per parameter list, in order; how many rows each run changed. */
  runEach(sql: string, paramLists: unknown[][]): Promise<number[]>;
}

// Kept on the client object itself: Next.js may load this module more than once per process
// (instrumentation and route bundles), while the client is shared.
const SQLITE_CLIENT = Symbol.for("sightdesk.sqliteClient");
const POSTGRES_POOL = Symbol.for("sightdesk.postgresPool");
const SQLITE_SQL = Symbol.for("sightdesk.sqliteSql");
const DIALECT = Symbol.for("sightdesk.dialect");
type WithSqlite = { [SQLITE_CLIENT]?: BetterSqlite3.Database; [SQLITE_SQL]?: Sql; [DIALECT]?: Dialect; [POSTGRES_POOL]?: pg.Pool };
export type Dialect = Sql["dialect"];

/** Remembers which database a Prisma client talks to (set when the client is created). */
export function registerDialect(db: object, dialect: Dialect): void {
  (db as WithSqlite)[DIALECT] = dialect;
}

export function dialectOf(db: Db): Dialect {
  return (db as unknown as WithSqlite)[DIALECT] ?? "sqlite";
}

/** Remembers the SQLite connection behind a Prisma client (set by the adapter factory). */
export function registerSqliteClient(db: object, client: BetterSqlite3.Database): void {
  (db as WithSqlite)[SQLITE_CLIENT] = client;
  delete (db as WithSqlite)[SQLITE_SQL];
}

/** Remembers the PostgreSQL pool behind a Prisma client (set by the adapter factory on each connect). */
export function registerPostgresPool(db: object, pool: pg.Pool): void {
  (db as WithSqlite)[POSTGRES_POOL] = pool;
}

const STATEMENT_CACHE_SIZE = 200;

class SqliteSql implements Sql {
  readonly dialect = "sqlite";
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly client: BetterSqlite3.Database) {}

  private statement(sql: string): BetterSqlite3.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.client.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  async all(sql: string, params: unknown[] = []): Promise<Row[]> {
    return this.statement(sql).all(...params.map(bindSqlite)) as Row[];
  }

  async run(sql: string, params: unknown[] = []): Promise<void> {
    this.statement(sql).run(...params.map(bindSqlite));
  }

  async runEach(sql: string, paramLists: unknown[][]): Promise<number[]> {
    const stmt = this.statement(sql);
    return paramLists.map((params) => stmt.run(...params.map(bindSqlite)).changes);
  }
}

function bindSqlite(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  return v;
}

class PrismaSql implements Sql {
  locksEverything = false;

  constructor(
    private readonly tx: DbTx,
    readonly dialect: "sqlite" | "postgres",
  ) {}

  private text(sql: string): string {
    return this.dialect === "postgres" ? toNumbered(sql) : sql;
  }

  async all(sql: string, params: unknown[] = []): Promise<Row[]> {
    return this.tx.$queryRawUnsafe<Row[]>(this.text(sql), ...params.map(withoutNul));
  }

  async run(sql: string, params: unknown[] = []): Promise<void> {
    await this.tx.$executeRawUnsafe(this.text(sql), ...params.map(withoutNul));
  }

  async runEach(sql: string, paramLists: unknown[][]): Promise<number[]> {
    const changed: number[] = [];
    for (const params of paramLists) changed.push(await this.tx.$executeRawUnsafe(this.text(sql), ...params.map(withoutNul)));
    return changed;
  }
}

/** `?` placeholders to PostgreSQL's `$1, $2, …` (our SQL never has `?` inside literals). */
export function toNumbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

const pgTypes = postgresTypes(pg);

function sqlFor(db: Db, tx: DbTx, locksEverything = false): Sql {
  const holder = db as unknown as WithSqlite;
  const client = holder[SQLITE_CLIENT];
  if (!client) return Object.assign(new PrismaSql(tx, dialectOf(db)), { locksEverything });
  return (holder[SQLITE_SQL] ??= new SqliteSql(client));
}

/**
 * SQLite: a write as a transaction's first statement takes the write lock at once, waiting (busy
 * timeout) for another connection's writer (`sightdesk import` beside the server): a transaction
 * that read first cannot take it after that writer committed, and fails at once, "database is locked".
 */
const TAKE_WRITE_LOCK = `DELETE FROM "Setting" WHERE 0`;

/**
 * Runs `fn` in one database transaction, with plain SQL and the Prisma transaction client.
 * PostgreSQL may abort a transaction that deadlocked with another; it is run again (twice at most).
 */
export async function transaction<T>(db: Db, fn: (sql: Sql, tx: DbTx) => Promise<T>, timeoutMs = 120_000): Promise<T> {
  let locksEverything = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(
        async (tx) => {
          const sql = sqlFor(db, tx, locksEverything);
          if (sql.dialect === "sqlite") await sql.run(TAKE_WRITE_LOCK);
          return fn(sql, tx);
        },
        { maxWait: 30_000, timeout: timeoutMs },
      );
    } catch (e) {
      if (attempt >= 3 || !runsAgain(e)) throw e;
      locksEverything ||= isOutOfLocks(e);
    }
  }
}

// PostgreSQL 15+ can publish a transaction's table statistics (rows inserted, deleted) as it
// commits, instead of up to seconds later. The size cap reads those statistics, and a report
// that arrives after a VACUUM counted the rows counts them again (lib/sweeps/postgresSpace.ts).

/** Run last in a transaction: its statistics are published when it commits. */
export const FLUSH_STATS_SQL = "SELECT 1 FROM pg_stat_force_next_flush()";

const FLUSHES = new WeakMap<Db, Promise<boolean>>();

/** Whether the database can publish a transaction's statistics when it commits (PostgreSQL 15+). */
export function flushesStats(db: Db): Promise<boolean> {
  let known = FLUSHES.get(db);
  if (!known) {
    known =
      dialectOf(db) === "postgres"
        ? db.$queryRawUnsafe<{ v: unknown }[]>("SELECT current_setting('server_version_num')::int AS v").then(([r]) => Number(r.v) >= 150_000)
        : Promise.resolve(false);
    FLUSHES.set(db, known);
  }
  return known;
}

/**
 * `transaction` for work done in plain SQL only. On PostgreSQL it runs on a connection of
 * Prisma's pool, outside Prisma: no query compilation per statement, few round trips.
 */
export async function sqlTransaction<T>(db: Db, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const holder = db as unknown as WithSqlite;
  if (dialectOf(db) !== "postgres") return transaction(db, (sql) => fn(sql));
  if (!holder[POSTGRES_POOL]) await db.$connect(); // Prisma connects lazily: the pool comes with it
  const pool = holder[POSTGRES_POOL];
  if (!pool) return transaction(db, (sql) => fn(sql));
  const flushStats = await flushesStats(db);
  let locksEverything = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await onPooledConnection(pool, fn, flushStats, locksEverything);
    } catch (e) {
      if (attempt >= 3 || !runsAgain(e)) throw e;
      locksEverything ||= isOutOfLocks(e);
    }
  }
}

const SQL_TRANSACTION_TIMEOUT_MS = 120_000;

async function onPooledConnection<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>, flushStats: boolean, locksEverything: boolean): Promise<T> {
  const client = await pool.connect();
  const sql = Object.assign(new PostgresSql(client, pgTypes), { locksEverything });
  let broken: Error | undefined;
  try {
    // no statement waits (e.g. for a lock) longer than Prisma would let its transaction run
    sql.begin(SQL_TRANSACTION_TIMEOUT_MS);
    const result = await fn(sql);
    // the rows it wrote are in the statistics when it commits (the size cap reads them)
    if (flushStats) await sql.run(FLUSH_STATS_SQL);
    await sql.commit();
    return result;
  } catch (e) {
    await sql.rollback().catch((rollback: Error) => (broken = rollback));
    throw e;
  } finally {
    client.release(broken); // a connection that could not roll back is closed, not reused
  }
}

const isDeadlock = (e: unknown) => /deadlock detected|could not serialize access/i.test(String((e as Error)?.message ?? e));
/** PostgreSQL's lock table (shared by every connection, a few thousand locks by default) is full. */
const isOutOfLocks = (e: unknown) => /out of shared memory/i.test(String((e as Error)?.message ?? e));
/** A transaction PostgreSQL aborted for what a second run can avoid. */
const runsAgain = (e: unknown) => isDeadlock(e) || isOutOfLocks(e);

/** Past this many keys, `lockKeys` takes the key that stands for every key. */
const MAX_KEYS = 1_000;
/**
 * The key that stands for every key: an advisory lock of the two-integer form, a space apart
 * from the one-bigint locks of hashed keys, so no key can be it.
 */
const EVERY_KEY = "0, 0";
/** Transactions holding the key for every key exclusively, and those holding it shared (with keys of their own). */
const holdingEvery = new WeakSet<Sql>();
const holdingSome = new WeakSet<Sql>();

/**
 * Makes transactions that touch the same keys (e.g. one agent process's rows) run one after the
 * other: on PostgreSQL an advisory lock per key (`shared` ones shared: they keep out only an
 * exclusive holder of the key, not each other), held to the end of the transaction and taken in
 * sorted order (the exclusive keys, then the shared ones: only the sweep takes those exclusive,
 * alone) so two batches never wait on each other in a cycle — all in one statement (the
 * function scan takes them in the array's order). SQLite runs one writing transaction at a time anyway.
 *
 * PostgreSQL's lock table is shared by every connection and bounded (64 locks per connection by
 * default), and a 10 MiB batch can name tens of thousands of sessions: every transaction first
 * takes one key that stands for all of them, shared, and a transaction whose first keys are more
 * than MAX_KEYS (or that runs again after the table was full) takes that key alone, exclusive:
 * it holds every key at the cost of one lock, and runs while no other transaction holds any.
 * A transaction that holds keys already never asks for it exclusive (an upgrade could deadlock).
 */
export async function lockKeys(sql: Sql, keys: Iterable<string>, shared: readonly string[] = []): Promise<void> {
  if (sql.dialect !== "postgres" || holdingEvery.has(sql)) return;
  const exclusive = [...new Set(keys)].sort();
  const taken = new Set(exclusive);
  const sharedOnly = [...new Set(shared)].filter((k) => !taken.has(k)).sort();
  if (!exclusive.length && !sharedOnly.length) return;
  if (!holdingSome.has(sql) && (sql.locksEverything || exclusive.length + sharedOnly.length > MAX_KEYS)) {
    await sql.all(`SELECT COUNT(pg_advisory_xact_lock(${EVERY_KEY})) AS "n"`);
    holdingEvery.add(sql);
    return;
  }
  // a read, not a run: when this resolves, the locks are held; the key for every key first,
  // then each key, marked x (exclusive) or s (shared)
  const lock = (mode: string) => `${mode}(hashtextextended(substr(t.k, 2), 0))`;
  await sql.all(
    `SELECT COUNT(CASE WHEN t.n = 1 THEN pg_advisory_xact_lock_shared(${EVERY_KEY}) ` +
      `WHEN left(t.k, 1) = 'x' THEN ${lock("pg_advisory_xact_lock")} ELSE ${lock("pg_advisory_xact_lock_shared")} END) AS "n" ` +
      `FROM json_array_elements_text(?::json) WITH ORDINALITY AS t(k, n)`,
    [JSON.stringify(["", ...exclusive.map((k) => `x${k}`), ...sharedOnly.map((k) => `s${k}`)])],
  );
  holdingSome.add(sql);
}

/** An exclusive lock of one name to the end of the transaction (PostgreSQL), apart from the store's keys. */
export async function lockName(sql: Sql, name: string): Promise<void> {
  if (sql.dialect === "postgres") await sql.all(`SELECT COUNT(pg_advisory_xact_lock(hashtextextended(?, 0))) AS "n"`, [name]);
}

/** `?, ?, ?` for n values. */
export const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export const asNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const asBigInt = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(v as bigint | number | string));
export const asBool = (v: unknown): boolean | null => (v === null || v === undefined ? null : Boolean(Number(v)));
export const asText = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A read outside any transaction, with `?` placeholders on every database. */
export const readSql = (db: Db): Sql => sqlFor(db, db);

/**
 * Whether the database answers (throws when not): a `SELECT 1` straight on the driver (SQLite's
 * connection, a PostgreSQL pool connection) once Prisma has connected, without Prisma in between.
 */
export async function ping(db: Db): Promise<void> {
  const holder = db as unknown as WithSqlite;
  if (holder[SQLITE_CLIENT]) await readSql(db).all("SELECT 1");
  else if (holder[POSTGRES_POOL]) await holder[POSTGRES_POOL].query({ name: "sightdesk_ping", text: "SELECT 1" });
  else await db.$queryRawUnsafe("SELECT 1"); // connects
}
