// API latency benchmark: 1,000,000 interruptions over 100,000 sessions (30 days of history),
// the production server on that database, p50/p95 of the list/count/stats/session-counts
// routes over HTTP, beside the same SQL run directly on the database (the floor). SQLite by
// default; PostgreSQL with DATABASE_URL=postgresql://… or --postgres URL (a fresh database
// "sightdesk_bench_api" on that server, dropped first).
// Usage: npm run bench:api [-- --rows 1000000 --runs 60 --postgres URL --keep DIR]
// With --agentsight: SightDesk beside AgentSight on AgentSight's own store (bench/apiAgentSight.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { quote } from "../lib/db/multiRow";
import { migrate } from "../lib/db/migrate";
import { dropDatabase, withClient, withDatabase } from "../lib/db/postgresAdmin";
import { REGRESSED_SQL } from "../lib/db/queries/filterSql";
import { marks, toNumbered } from "../lib/db/sql";
import { providerOf } from "../lib/db/url";
import { DEFAULT_SEVERITY, INTERRUPTION_TYPES } from "../lib/domain/interruptions";
import { runAgentSightComparison } from "./apiAgentSight";
import { flag, getJson, machineLine, startServer, timeRuns, type Timing } from "./serverTiming";
import { prng } from "../tests/support/prng";

const arg = (name: string, fallback: number) => Number(flag(name) ?? fallback);

const ROWS = arg("rows", 1_000_000);
const SESSIONS = Math.max(1, Math.round(ROWS / 10));
const RUNS = arg("runs", 60);
const DAY_NS = 86_400_000_000_000n;
const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const AGENTS = ["CoshNG", "research-bot", "support-agent", "explorer", "planner", "reviewer", "deployer", "triager", "indexer", "scribe"];
// Provider errors dominate real inboxes; crashes and loops are rare.
const TYPE_WEIGHTS: Record<string, number> = { rate_limit: 30, tool_failure: 15, llm_error: 8, service_unavailable: 8, network_timeout: 6, token_limit: 6, empty_response: 5, sse_truncated: 4, slow_response: 4 };


type Table = "Session" | "Interruption";
const COLUMNS: Record<Table, string[]> = {
  Session: ["id", "agentName", "pid", "host", "firstSeenNs", "lastSeenNs", "callCount"],
  Interruption: ["id", "sessionId", "conversationId", "turnId", "callId", "traceId", "pid", "agentName", "model", "type", "severity", "occurredAtNs", "lastSeenNs", "occurrences", "detail", "fingerprint", "status", "resolvedBy", "resolvedAtNs", "createdAtNs"],
};
const insertSql = (table: Table, rows: number) =>
  `INSERT INTO ${quote(table)} (${COLUMNS[table].map(quote).join(",")}) VALUES ${Array.from({ length: rows }, () => `(${marks(COLUMNS[table].length)})`).join(",")}`;

/** The generated data in insert order, in batches of one table: every session, then the interruptions (one seeded stream: both databases get the same rows). */
function* generatedRows(batch: number): Generator<{ table: Table; rows: unknown[][] }> {
  const rand = prng(42);
  const weighted = INTERRUPTION_TYPES.flatMap((t) => Array(TYPE_WEIGHTS[t] ?? 1).fill(t) as string[]);
  const sessionStart = new Map<number, bigint>();
  for (let done = 0; done < SESSIONS; done += batch) {
    const rows: unknown[][] = [];
    for (let s = done; s < Math.min(SESSIONS, done + batch); s++) {
      const start = NOW_NS - BigInt(Math.floor(rand() * 30 * 86_400_000)) * 1_000_000n;
      sessionStart.set(s, start);
      rows.push([`sess-${s}`, AGENTS[s % AGENTS.length], 1000 + s, `host-${s % 50}`, start, start + 3_600_000_000_000n, 40]);
    }
    yield { table: "Session", rows };
  }
  for (let done = 0; done < ROWS; done += batch) {
    const rows: unknown[][] = [];
    for (let i = done; i < Math.min(ROWS, done + batch); i++) {
      const s = Math.floor(rand() * SESSIONS);
      const at = sessionStart.get(s)! + BigInt(Math.floor(rand() * 3_600_000)) * 1_000_000n;
      const ageDays = Number(NOW_NS - at) / 8.64e13;
      const type = weighted[Math.floor(rand() * weighted.length)];
      const resolved = rand() < Math.min(0.95, ageDays / 7);
      rows.push([
        i.toString(16).padStart(32, "0"), `sess-${s}`, `conv-${s}-${i % 7}`, null, `call-${i}`, null, 1000 + s,
        AGENTS[s % AGENTS.length], "qwen-plus", type, DEFAULT_SEVERITY[type as keyof typeof DEFAULT_SEVERITY], at, at, 1,
        JSON.stringify({ status_code: 429, message: "Rate limit reached for requests" }), `fp-${type}-${s % AGENTS.length}`,
        resolved ? "resolved" : "open", resolved ? "token:bench" : null, resolved ? at + DAY_NS / 24n : null, at,
      ]);
    }
    yield { table: "Interruption", rows };
  }
}

function loadSqlite(file: string): void {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const insert = { Session: db.prepare(insertSql("Session", 1)), Interruption: db.prepare(insertSql("Interruption", 1)) };
  for (const { table, rows } of generatedRows(50_000)) {
    db.transaction(() => {
      for (const row of rows) insert[table].run(...row);
    })();
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("ANALYZE");
  db.close();
}

/** Multi-row INSERTs of 3,000 rows (PostgreSQL takes at most 65,535 parameters per statement). */
async function loadPostgres(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query("SET synchronous_commit = off");
    for (const { table, rows } of generatedRows(3_000)) {
      await client.query({ name: `insert-${table}-${rows.length}`, text: toNumbered(insertSql(table, rows.length)), values: rows.flat() });
    }
    // VACUUM as well: it sets the visibility map index-only scans need, as autovacuum would after
    // a while, and keeps autovacuum from starting on the new rows in the middle of the measurements.
    await client.query("VACUUM (ANALYZE)");
  });
}

type Case = { name: string; route: string; sql: string; params: unknown[] };

function cases(session: string): Case[] {
  const end = NOW_NS;
  const start = end - DAY_NS;
  const win = `start_ns=${start}&end_ns=${end}`;
  const unresolved = `"status" IN ('open','acknowledged')`;
  const inWindow = `"occurredAtNs" >= ? AND "occurredAtNs" <= ?`;
  const order = `ORDER BY "occurredAtNs" DESC, "id" DESC LIMIT 200`;
  return [
    { name: "floor: GET /api/health (no query work)", route: "/api/health", sql: "SELECT 1", params: [] },
    { name: "list (24 h, limit 200)", route: `/api/interruptions?${win}`, sql: `SELECT *, ${REGRESSED_SQL} AS "regressed" FROM "Interruption" WHERE ${inWindow} ${order}`, params: [start, end] },
    { name: "list agent_name", route: `/api/interruptions?${win}&agent_name=planner`, sql: `SELECT *, ${REGRESSED_SQL} AS "regressed" FROM "Interruption" WHERE ${inWindow} AND "agentName" = ? ${order}`, params: [start, end, "planner"] },
    { name: "list severity=critical,high unresolved", route: `/api/interruptions?${win}&severity=critical,high&resolved=false`, sql: `SELECT *, ${REGRESSED_SQL} AS "regressed" FROM "Interruption" WHERE ${inWindow} AND "severity" IN ('critical','high') AND ${unresolved} ${order}`, params: [start, end] },
    { name: "list type=agent_crash (rare)", route: `/api/interruptions?${win}&interruption_type=agent_crash`, sql: `SELECT *, ${REGRESSED_SQL} AS "regressed" FROM "Interruption" WHERE ${inWindow} AND "type" = 'agent_crash' ${order}`, params: [start, end] },
    { name: "list session_id (30 d)", route: `/api/interruptions?start_ns=${end - 30n * DAY_NS}&end_ns=${end}&session_id=${session}`, sql: `SELECT *, ${REGRESSED_SQL} AS "regressed" FROM "Interruption" WHERE "occurredAtNs" >= ? AND "occurredAtNs" <= ? AND "sessionId" = ? ${order}`, params: [end - 30n * DAY_NS, end, session] },
    { name: "count", route: `/api/interruptions/count?${win}`, sql: `SELECT "severity", COUNT(*) FROM "Interruption" WHERE ${inWindow} AND ${unresolved} GROUP BY "severity"`, params: [start, end] },
    { name: "count agent_name", route: `/api/interruptions/count?${win}&agent_name=planner`, sql: `SELECT "severity", COUNT(*) FROM "Interruption" WHERE ${inWindow} AND "agentName" = ? AND ${unresolved} GROUP BY "severity"`, params: [start, end, "planner"] },
    { name: "stats", route: `/api/interruptions/stats?${win}`, sql: `SELECT "type", "severity", COUNT(*) FROM "Interruption" WHERE ${inWindow} AND ${unresolved} GROUP BY "type", "severity"`, params: [start, end] },
    { name: "session-counts", route: `/api/interruptions/session-counts?${win}`, sql: `SELECT "sessionId", "type", "severity", COUNT(*) FROM "Interruption" WHERE ${inWindow} AND ${unresolved} GROUP BY "sessionId", "type", "severity"`, params: [start, end] },
  ];
}

async function timeHttp(url: string, token: string, c: Case): Promise<Timing & { rows: number }> {
  let rows = 0;
  const timing = await timeRuns(RUNS, async () => {
    const body = await getJson(url, token, c.route);
    rows = Array.isArray(body) ? body.length : 1;
  });
  return { ...timing, rows };
}

/** One query, ready to run: runs it with these parameters, returns once the rows are read. */
type Query = (params: unknown[]) => Promise<unknown>;

/** A database to load, serve and query directly: a SQLite file in `dir`, or a database on a PostgreSQL server. */
interface Target {
  /** DATABASE_URL for migrations and the server. */
  url: string;
  /** Server environment (beyond the data folder and the sweeper's limits). */
  serverEnv: Record<string, string>;
  describe(): Promise<string | null>;
  /** Whether a kept database already holds the benchmark's data. */
  loaded(): Promise<boolean>;
  /** Before migrating for a fresh load. */
  reset(): Promise<void>;
  load(): Promise<void>;
  connect(): Promise<{ prepare(sql: string): Query; close(): Promise<void> }>;
  /** After the run, unless kept (the server may still hold connections). */
  drop(): Promise<void>;
}

function sqliteTarget(dir: string): Target {
  const file = path.join(dir, "sightdesk.db");
  return {
    url: `file:${file}`,
    serverEnv: { DATABASE_URL: "" },
    describe: async () => null,
    loaded: async () => fs.existsSync(file),
    reset: async () => undefined,
    load: async () => loadSqlite(file),
    connect: async () => {
      const db = new Database(file, { readonly: true });
      db.defaultSafeIntegers(true);
      return {
        prepare: (sql) => {
          const stmt = db.prepare(sql);
          return async (params) => stmt.all(...params);
        },
        close: async () => void db.close(),
      };
    },
    drop: async () => undefined,
  };
}

const BENCH_DATABASE = "sightdesk_bench_api";

function postgresTarget(serverUrl: string): Target {
  const url = withDatabase(serverUrl, BENCH_DATABASE);
  return {
    url,
    serverEnv: { DATABASE_URL: url },
    describe: () => withClient(withDatabase(serverUrl, "postgres"), async (c) => String((await c.query("SHOW server_version")).rows[0].server_version)).then((v) => `PostgreSQL ${v}, database ${BENCH_DATABASE}`),
    loaded: () => withClient(url, async (c) => (await c.query(`SELECT EXISTS (SELECT 1 FROM "Interruption") AS "any"`)).rows[0].any as boolean).catch(() => false),
    reset: () => dropDatabase(url),
    load: () => loadPostgres(url),
    connect: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return {
        prepare: (sql) => {
          // The same SQL text with PostgreSQL's placeholders, sent unnamed as Prisma's adapter does:
          // planned for each run's values. (A named statement switches to a generic plan after 5
          // runs, which cannot see how narrow the time window is.)
          const text = toNumbered(sql);
          return (params) => client.query({ text, values: params });
        },
        close: () => client.end(),
      };
    },
    drop: () => dropDatabase(url),
  };
}

const timeSql = (run: Query, c: Case): Promise<Timing> => timeRuns(RUNS, () => run(c.params));

async function main() {
  if (process.argv.includes("--agentsight")) return runAgentSightComparison();
  // --keep DIR: reuse (or create and keep) the loaded database (and the token file in DIR), for iterating on indexes
  const keep = process.argv.includes("--keep") ? path.resolve(process.argv[process.argv.indexOf("--keep") + 1]) : null;
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-api-"));
  const postgresUrl = flag("postgres") ?? (process.env.DATABASE_URL && providerOf(process.env.DATABASE_URL) === "postgresql" ? process.env.DATABASE_URL : undefined);
  const target = postgresUrl ? postgresTarget(postgresUrl) : sqliteTarget(dir);
  console.log(`Machine: ${machineLine()}`);
  const database = await target.describe();
  if (database) console.log(`Database: ${database}`);
  const reuse = keep !== null && (await target.loaded());
  let t = performance.now();
  if (!reuse) await target.reset();
  await migrate(target.url);
  if (!reuse) {
    await target.load();
    console.log(`Loaded ${ROWS} interruptions over ${SESSIONS} sessions in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }

  // The loaded database is far over the default 100 MB cap and spans 30 days: startServer keeps
  // the sweeper from trimming what is being measured.
  const server = await startServer(dir, target.serverEnv);
  try {
    const { url, token } = server;
    const direct = await target.connect();
    console.log(`\n${RUNS} runs each after 5 warm-up runs; times in ms\n`);
    console.log("| query | rows | HTTP p50 | HTTP p95 | SQL p50 | SQL p95 | HTTP p95 / SQL p95 |\n|---|---|---|---|---|---|---|");
    for (const c of cases(`sess-${Math.floor(SESSIONS / 2)}`)) {
      const http = await timeHttp(url, token, c);
      const sql = await timeSql(direct.prepare(c.sql), c);
      const ratio = http.p95 / Math.max(sql.p95, 0.001);
      console.log(`| ${c.name} | ${http.rows} | ${http.p50.toFixed(1)} | ${http.p95.toFixed(1)} | ${sql.p50.toFixed(1)} | ${sql.p95.toFixed(1)} | ${ratio.toFixed(1)}× |`);
    }
    await direct.close();
  } finally {
    server.stop();
    if (!keep) {
      await target.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
