// Starts the real production server (`next start`, built by `npm run build`) on a fresh data
// directory and a free port, as a user would run it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { quote } from "@/lib/db/multiRow";
import { withClient } from "@/lib/db/postgresAdmin";
import { nextStartArgs } from "@/lib/server/nextStart";
import { createTestDatabase, type TestDatabase } from "../../support/database";

export type TestServer = {
  url: string;
  token: string;
  dataDir: string;
  /** The server's database and the environment that points a CLI at the same data. */
  databaseUrl: string;
  env: { SIGHTDESK_DATA_DIR: string; DATABASE_URL: string };
  dbFile: string | null;
  api: (route: string, init?: RequestInit & { token?: string | null }) => Promise<Response>;
  /** Everything the server printed so far (stdout and stderr). */
  log: () => string;
  /** What the server printed on stderr so far. */
  stderr: () => string;
  stop: () => Promise<void>;
  /**
   * Sends `signal` (SIGKILL unless named: no shutdown of any kind) to the server's process group
   * and waits until it has exited; the data directory and the database stay, for a server started
   * on them again (`dataDir` and `database` or `databaseUrl` options).
   */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  /** The server's database (a later server may be started on it). */
  database: TestDatabase;
};

const ROOT = path.resolve(__dirname, "../../..");

/** A port nothing listens on (free now; closed again before returning). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** How long `stop` lets the server shut down by itself (SIGTERM) before killing it. */
const STOP_GRACE_MS = 1_000;

async function waitForHealth(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${log()}`);
    try {
      const res = await fetch(`${url}/api/health`);
      await res.arrayBuffer(); // an unread answer holds the connection, and a stop with it (see `stop`)
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not become healthy:\n${log()}`);
}

export type StartOptions = {
  /**
   * The data directory to use (it may not exist yet: the server creates it); default a new
   * temporary one. It is removed when the server stops.
   */
  dataDir?: string;
  /**
   * Keep the SQLite database in the data directory, as a user's `npm start` does (migrated
   * first, like `npm start` does), instead of a test database elsewhere.
   */
  databaseInDataDir?: boolean;
  /**
   * An existing, migrated database to serve (several servers on one database); it is left in
   * place when the server stops.
   */
  databaseUrl?: string;
  /** An existing, migrated database to serve (e.g. a killed server's), instead of a fresh one; dropped when the server stops. */
  database?: TestDatabase;
};

/** What `npm start` runs before the server: the migrations of the database in `env`. */
export function migrateLikeNpmStart(env: Record<string, string>): void {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.DATABASE_URL;
  const run = spawnSync(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/migrate.ts")], {
    cwd: ROOT,
    env: { ...base, ...env },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`migration failed:\n${run.stdout}\n${run.stderr}`);
}

export async function startServer(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestServer> {
  if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm run build` first (npm test does).");
  }
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-test-"));
  const database: TestDatabase = options.databaseInDataDir
    ? { url: `file:${path.join(dataDir, "sightdesk.db")}`, provider: "sqlite", file: path.join(dataDir, "sightdesk.db"), drop: async () => undefined }
    : options.databaseUrl
      ? { url: options.databaseUrl, provider: options.databaseUrl.startsWith("file:") ? "sqlite" : "postgresql", file: options.databaseUrl.startsWith("file:") ? options.databaseUrl.slice(5) : null, drop: async () => undefined }
      : (options.database ?? (await createTestDatabase("server")));
  const serverEnv = { SIGHTDESK_DATA_DIR: dataDir, DATABASE_URL: database.url };
  if (options.databaseInDataDir) migrateLikeNpmStart({ SIGHTDESK_DATA_DIR: dataDir, ...env });
  // SIGHTDESK_PRELOAD_ROUTES=0: a test server serves a few routes; it need not load them all first (next.config.ts)
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...serverEnv, NODE_ENV: "production", SIGHTDESK_PRELOAD_ROUTES: "0", ...env };
  if (options.databaseInDataDir) delete childEnv.DATABASE_URL; // the default: $SIGHTDESK_DATA_DIR/sightdesk.db
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  let errors = "";
  const child = spawn(process.execPath, nextStartArgs(ROOT, port, "127.0.0.1"), {
    cwd: ROOT,
    env: childEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
    errors += d.toString();
  });
  await waitForHealth(url, child, () => output);
  const token = fs.readFileSync(path.join(dataDir, ".dashboard_token"), "utf8").trim();

  const api: TestServer["api"] = (route, init = {}) => {
    const { token: override, ...rest } = init;
    const headers = new Headers(rest.headers);
    const bearer = override === undefined ? token : override;
    if (bearer) headers.set("authorization", `Bearer ${bearer}`);
    if (rest.body && !headers.has("content-type")) headers.set("content-type", "application/json");
    return fetch(`${url}${route}`, { ...rest, headers });
  };

  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid, signal);
    await exited;
  };
  const stop = async () => {
    // Next's graceful close waits for connections it still counts as busy, and a response this
    // process's fetch left unread can keep one so for about 60 s (Node's headersTimeout). No
    // test needs more than the grace: the server's data is durable at every answer.
    const escalate = setTimeout(() => void kill("SIGKILL").catch(() => undefined), STOP_GRACE_MS);
    try {
      await kill("SIGTERM");
    } finally {
      clearTimeout(escalate);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  };
  return { url, token, dataDir, databaseUrl: database.url, env: serverEnv, dbFile: database.file, api, log: () => output, stderr: () => errors, kill, stop, database };
}

/**
 * Everything the database holds, to prove a secret was never written: the raw bytes of the
 * SQLite file and its WAL, or every row of every PostgreSQL table as text.
 */
export async function databaseBytes(server: TestServer): Promise<string> {
  const file = server.dbFile;
  if (file) {
    return ["", "-wal"]
      .map((suffix) => file + suffix)
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString("latin1"))
      .join("");
  }
  return withClient(server.databaseUrl, async (client) => {
    const tables = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
    const dumps = [];
    for (const { name } of tables.rows) {
      const rows = await client.query(`SELECT t::text AS row FROM ${quote(name)} t`);
      dumps.push(...rows.rows.map((r) => String(r.row)));
    }
    return dumps.join("\n");
  });
}
