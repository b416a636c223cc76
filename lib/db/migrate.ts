// Applies the committed migrations (prisma/migrations, or prisma/migrations-pg for PostgreSQL).
// A start with nothing to migrate compares the migration folders with Prisma's migration table
// directly and never starts the schema engine: `prisma migrate deploy` costs ~2 s of CPU even
// when it has nothing to do, and on PostgreSQL its process lingers 10 s (`runEngine`). When
// something is pending the engine runs (offline, see STACK.md) — on PostgreSQL under an advisory
// lock, so that server processes starting together migrate once: each takes the lock in turn
// and looks again (waiting by trying it, see lockMigrations). On SQLite the engine's own lock on the file is enough. Every start then makes
// sure the triggers that keep the per-session counts exist (lib/db/openCounts.ts).
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { ensureOpenCountsPostgres, ensureOpenCountsSqlite } from "./openCounts";
import { createDatabase, databaseName } from "./postgresAdmin";
import { aloneIndexBuild } from "./migrationSql";
import { PRISMA_FILES } from "./schemaFiles";
import { databaseUrl, providerOf, redactedUrl, sqliteFilePath } from "./url";

const PRISMA_CLI = path.join(process.cwd(), "node_modules", "prisma", "build", "index.js");
const TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended('sightdesk.migrate', 0)) AS locked";
const LOCK_RETRY_MS = 100;
const UNLOCK = "SELECT pg_advisory_unlock(hashtextextended('sightdesk.migrate', 0))";

export type Migration = { name: string; checksum: string };
/** A row of Prisma's `_prisma_migrations` table (the columns read here). */
export type AppliedMigration = { migration_name: string; checksum: string; finished_at: unknown; rolled_back_at: unknown };
export type MigrateResult = { applied: string[] };

/** The migration folders of the URL's provider, in the order deploy applies them, with Prisma's checksum (SHA-256 of migration.sql). */
export function committedMigrations(url: string, root = process.cwd()): Migration[] {
  const dir = path.join(root, PRISMA_FILES[providerOf(url)].migrations);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => ({ name: d.name, checksum: crypto.createHash("sha256").update(fs.readFileSync(path.join(dir, d.name, "migration.sql"))).digest("hex") }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The committed migrations the database has not applied (one that failed or was rolled back
 * counts as not applied: the engine then says what to do). An applied migration whose file has
 * changed since is not re-applied by `migrate deploy` either: it is only reported.
 */
export function pendingMigrations(committed: Migration[], applied: AppliedMigration[], warn: (m: string) => void = console.warn): Migration[] {
  const done = new Map(applied.filter((r) => r.finished_at !== null && r.rolled_back_at === null).map((r) => [r.migration_name, r.checksum]));
  for (const m of committed) {
    const checksum = done.get(m.name);
    if (checksum !== undefined && checksum !== m.checksum) warn(`[sightdesk] warning: migration ${m.name} was changed after it was applied`);
  }
  return committed.filter((m) => !done.has(m.name));
}

export async function migrate(url = databaseUrl()): Promise<MigrateResult> {
  const committed = committedMigrations(url);
  return providerOf(url) === "postgresql" ? migratePostgres(url, committed) : migrateSqlite(url, committed);
}

/**
 * Whether `prisma migrate deploy`'s output so far says every migration is applied (its last
 * words; colour codes, which it adds whenever FORCE_COLOR is set, are looked past).
 */
export const deployFinished = (stdout: string): boolean =>
  /^All migrations have been successfully applied\.$/m.test(stdout.replace(/\x1b\[[0-9;]*m/g, ""));

/**
 * `prisma migrate deploy`: prisma.config.ts picks the migration folder of the URL's provider. On
 * PostgreSQL the CLI lingers 10 s after its work is done (a timer its WebAssembly engine leaves
 * behind): once it has said that everything is applied, it is stopped instead of waited for.
 */
function runEngine(url: string): Promise<void> {
  const child = spawn(process.execPath, [PRISMA_CLI, "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let deployed = false;
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
    if (!deployed && deployFinished(stdout)) {
      deployed = true;
      child.kill();
    }
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => (deployed || code === 0 ? resolve() : reject(new Error(`Database migration failed:\n${stdout}\n${stderr}`))));
  });
}

// ── PostgreSQL ────────────────────────────────────────────────────────────────────────────

async function migratePostgres(url: string, committed: Migration[]): Promise<MigrateResult> {
  const client = await connectCreating(url);
  try {
    let applied: string[] = [];
    if (pendingMigrations(committed, await appliedOnPostgres(client), () => undefined).length) {
      await lockMigrations(client);
      try {
        // another process may have migrated while this one waited for the lock
        let pending = pendingMigrations(committed, await appliedOnPostgres(client));
        if (pending.length && (await undoFailedIndexBuilds(client, url))) pending = pendingMigrations(committed, await appliedOnPostgres(client), () => undefined);
        if (pending.length) await runEngine(url);
        applied = pending.map((m) => m.name);
      } finally {
        await client.query(UNLOCK);
      }
    }
    await ensureOpenCountsPostgres(client);
    return { applied };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Takes the migration lock, trying again until it is free. Not `pg_advisory_lock`: a session
 * blocked in it holds a snapshot all the while, and the holder's migration building an index
 * CONCURRENTLY waits for every older snapshot to go — a deadlock through this process that
 * PostgreSQL cannot see (each of several processes started at once would wait for ever).
 */
export async function lockMigrations(client: pg.Client): Promise<void> {
  while (!(await client.query<{ locked: boolean }>(TRY_LOCK)).rows[0].locked) await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
}

// pg_stat_progress_create_index lists the builds of every database on the server: an index of
// another database may have the same OID.
const BUILDING = `SELECT p.pid, p.phase FROM pg_stat_progress_create_index p JOIN pg_class c ON c.oid = p.index_relid
  WHERE p.datid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND c.relname = $1 AND pg_table_is_visible(c.oid)`;
const BUILD_POLL_MS = 1_000;
const BUILD_REPORT_MS = 30_000;

/**
 * Waits while a backend is still building the index (PostgreSQL goes on with a CREATE INDEX
 * CONCURRENTLY after its client is gone). No time limit: the build of a big table's index may
 * take long, and nothing else can be done with it meanwhile; instead the wait is reported at
 * once and then every `reportMs`, naming the backend, which an operator may cancel
 * (`SELECT pg_cancel_backend(pid)`): the next start then drops what it left and builds again.
 */
export async function waitForIndexBuild(
  client: pg.Client,
  index: string,
  report: (message: string) => void = console.warn,
  { pollMs = BUILD_POLL_MS, reportMs = BUILD_REPORT_MS } = {},
): Promise<void> {
  const started = Date.now();
  let reported = -Infinity;
  for (;;) {
    const build = (await client.query<{ pid: number; phase: string }>(BUILDING, [index])).rows[0];
    if (!build) return;
    if (Date.now() - reported >= reportMs) {
      reported = Date.now();
      const waited = Math.round((reported - started) / 1000);
      report(`[sightdesk] migrate: waiting for backend ${build.pid} to finish building index "${index}" (${build.phase}; waited ${waited} s; SELECT pg_cancel_backend(${build.pid}) stops it)`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * A migration that is one CREATE INDEX CONCURRENTLY and failed (the build failed, or the process
 * running it died) would stop every start with Prisma's P3009, and its INVALID index would make
 * a second try fail. Once no backend is still building it (waitForIndexBuild), an invalid
 * index is dropped and the migration marked rolled back, so the engine
 * builds it again — as `prisma migrate resolve --rolled-back` after a DROP INDEX would; a valid
 * one (built, but not recorded) is recorded as applied.
 */
async function undoFailedIndexBuilds(client: pg.Client, url: string): Promise<boolean> {
  if (!(await client.query("SELECT to_regclass('_prisma_migrations') AS t")).rows[0].t) return false; // a new database
  const failed = await client.query<{ id: string; migration_name: string }>(
    "SELECT id, migration_name FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL",
  );
  let changed = false;
  for (const row of failed.rows) {
    const file = path.join(process.cwd(), PRISMA_FILES[providerOf(url)].migrations, row.migration_name, "migration.sql");
    const index = fs.existsSync(file) ? aloneIndexBuild(fs.readFileSync(file, "utf8")) : null;
    if (!index) continue;
    await waitForIndexBuild(client, index);
    const found = await client.query<{ valid: boolean }>(
      "SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1 AND pg_table_is_visible(c.oid)",
      [index],
    );
    if (found.rows[0]?.valid) {
      await client.query("UPDATE _prisma_migrations SET finished_at = now(), applied_steps_count = 1 WHERE id = $1", [row.id]);
      console.warn(`[sightdesk] migration ${row.migration_name}: its index was built, now recorded as applied`);
    } else {
      if (found.rowCount) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.replace(/"/g, '""')}"`);
      await client.query("UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = $1", [row.id]);
      console.warn(`[sightdesk] migration ${row.migration_name} failed before (${found.rowCount ? "an invalid index dropped" : "no index left"}): building its index again`);
    }
    changed = true;
  }
  return changed;
}

async function appliedOnPostgres(client: pg.Client): Promise<AppliedMigration[]> {
  try {
    return (await client.query<AppliedMigration>("SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations")).rows;
  } catch (e) {
    if ((e as { code?: string }).code === "42P01") return []; // no migration table: a new database
    throw e;
  }
}

/** A connection to the URL's database, created first when the server has none of that name (first start). */
async function connectCreating(url: string): Promise<pg.Client> {
  const failed = (e: unknown) => new Error(`DATABASE_URL: cannot prepare database "${databaseName(url)}" at ${redactedUrl(url)}: ${(e as Error).message}`);
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return client;
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
  };
  try {
    return await connect();
  } catch (e) {
    if ((e as { code?: string }).code !== "3D000") throw failed(e); // 3D000: no such database
  }
  await createDatabase(url).catch((e: { code?: string }) => {
    // another process created it meanwhile: 42P04, or 23505 when both wrote the catalog at once
    if (e.code !== "42P04" && e.code !== "23505") throw failed(e);
  });
  return connect().catch((e) => {
    throw failed(e);
  });
}

// ── SQLite ────────────────────────────────────────────────────────────────────────────────

async function migrateSqlite(url: string, committed: Migration[]): Promise<MigrateResult> {
  const file = sqliteFilePath(url)!;
  const pending = fs.existsSync(file) ? pendingMigrations(committed, withSqlite(file, appliedOnSqlite)) : committed;
  if (pending.length) await runEngine(url);
  // WAL lets readers work while ingest writes; it is a property of the file.
  withSqlite(file, (db) => db.pragma("journal_mode = WAL"));
  await ensureOpenCountsSqlite(file);
  return { applied: pending.map((m) => m.name) };
}

function withSqlite<T>(file: string, fn: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(file, { fileMustExist: true, timeout: 10_000 });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function appliedOnSqlite(db: BetterSqlite3.Database): AppliedMigration[] {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get()) return [];
  return db.prepare("SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations").all() as AppliedMigration[];
}
