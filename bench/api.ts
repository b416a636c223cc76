// API latency benchmark: 1,000,000 interruptions over 100,000 sessions (30 days of history),
// the production server on that database, p50/p95 of the list/count/stats/session-counts
// routes over HTTP, beside the same SQL run directly on the file (the floor).
// Usage: npm run bench:api [-- --rows 1000000 --runs 60]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { migrate } from "../lib/db/migrate";
import { REGRESSED_SQL } from "../lib/db/queries/filterSql";
import { DEFAULT_SEVERITY, INTERRUPTION_TYPES } from "../lib/detect/types";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const ROWS = arg("rows", 1_000_000);
const SESSIONS = Math.max(1, Math.round(ROWS / 10));
const RUNS = arg("runs", 60);
const DAY_NS = 86_400_000_000_000n;
const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const AGENTS = ["CoshNG", "research-bot", "support-agent", "explorer", "planner", "reviewer", "deployer", "triager", "indexer", "scribe"];
// Provider errors dominate real inboxes; crashes and loops are rare.
const TYPE_WEIGHTS: Record<string, number> = { rate_limit: 30, tool_failure: 15, llm_error: 8, service_unavailable: 8, network_timeout: 6, token_limit: 6, empty_response: 5, sse_truncated: 4, slow_response: 4 };

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function load(file: string): string {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const rand = prng(42);
  const weighted = INTERRUPTION_TYPES.flatMap((t) => Array(TYPE_WEIGHTS[t] ?? 1).fill(t) as string[]);
  const insertSession = db.prepare(
    `INSERT INTO "Session" ("id","agentName","pid","host","firstSeenNs","lastSeenNs","callCount") VALUES (?,?,?,?,?,?,?)`,
  );
  const insert = db.prepare(
    `INSERT INTO "Interruption" ("id","sessionId","conversationId","turnId","callId","traceId","pid","agentName","model","type","severity","occurredAtNs","lastSeenNs","occurrences","detail","fingerprint","status","resolvedBy","resolvedAtNs","createdAtNs") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,1,?,?,?,?,?,?)`,
  );
  const sessionStart = new Map<number, bigint>();
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) {
      const start = NOW_NS - BigInt(Math.floor(rand() * 30 * 86_400_000)) * 1_000_000n;
      sessionStart.set(s, start);
      insertSession.run(`sess-${s}`, AGENTS[s % AGENTS.length], 1000 + s, `host-${s % 50}`, start, start + 3_600_000_000_000n, 40);
    }
  })();
  const batch = 50_000;
  for (let done = 0; done < ROWS; done += batch) {
    db.transaction(() => {
      for (let i = done; i < Math.min(ROWS, done + batch); i++) {
        const s = Math.floor(rand() * SESSIONS);
        const at = sessionStart.get(s)! + BigInt(Math.floor(rand() * 3_600_000)) * 1_000_000n;
        const ageDays = Number(NOW_NS - at) / 8.64e13;
        const type = weighted[Math.floor(rand() * weighted.length)];
        const resolved = rand() < Math.min(0.95, ageDays / 7);
        insert.run(
          i.toString(16).padStart(32, "0"), `sess-${s}`, `conv-${s}-${i % 7}`, null, `call-${i}`, null, 1000 + s,
          AGENTS[s % AGENTS.length], "qwen-plus", type, DEFAULT_SEVERITY[type as keyof typeof DEFAULT_SEVERITY], at, at,
          JSON.stringify({ status_code: 429, message: "Rate limit reached for requests" }), `fp-${type}-${s % AGENTS.length}`,
          resolved ? "resolved" : "open", resolved ? "token:bench" : null, resolved ? at + DAY_NS / 24n : null, at,
        );
      }
    })();
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("ANALYZE");
  db.close();
  return `sess-${Math.floor(SESSIONS / 2)}`;
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

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function timeHttp(url: string, token: string, c: Case): Promise<{ p50: number; p95: number; rows: number }> {
  let rows = 0;
  const times: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const t = performance.now();
    const res = await fetch(url + c.route, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as unknown;
    if (!res.ok) throw new Error(`${c.route}: ${res.status} ${JSON.stringify(body)}`);
    if (i >= 5) times.push(performance.now() - t);
    rows = Array.isArray(body) ? body.length : 1;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), rows };
}

function timeSql(db: Database.Database, c: Case): { p50: number; p95: number } {
  const stmt = db.prepare(c.sql);
  const times: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const t = performance.now();
    stmt.all(...c.params);
    if (i >= 5) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

async function main() {
  // --keep DIR: reuse (or create and keep) the loaded database there, for iterating on indexes
  const keep = process.argv.includes("--keep") ? path.resolve(process.argv[process.argv.indexOf("--keep") + 1]) : null;
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-api-"));
  const file = path.join(dir, "sightdesk.db");
  console.log(`Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}`);
  const reuse = keep !== null && fs.existsSync(file);
  let t = performance.now();
  await migrate(`file:${file}`);
  const session = reuse ? `sess-${Math.floor(SESSIONS / 2)}` : load(file);
  if (!reuse) console.log(`Loaded ${ROWS} interruptions over ${SESSIONS} sessions in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const port = 3900 + Math.floor(Math.random() * 90);
  const server = spawn(process.execPath, [path.join("node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"], {
    // The loaded database is far over the default 100 MB cap and spans 30 days: keep the sweeper
    // from trimming what is being measured.
    env: { ...process.env, SIGHTDESK_DATA_DIR: dir, DATABASE_URL: "", SIGHTDESK_MAX_DB_SIZE_MB: "1000000", SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS: "3650" },
    stdio: "ignore",
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    t = performance.now();
    while (performance.now() - t < 60_000) {
      if (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const token = fs.readFileSync(path.join(dir, ".dashboard_token"), "utf8").trim();
    const direct = new Database(file, { readonly: true });
    direct.defaultSafeIntegers(true);
    console.log(`\n${RUNS} runs each after 5 warm-up runs; times in ms\n`);
    console.log("| query | rows | HTTP p50 | HTTP p95 | SQL p50 | SQL p95 | HTTP p95 / SQL p95 |\n|---|---|---|---|---|---|---|");
    for (const c of cases(session)) {
      const http = await timeHttp(url, token, c);
      const sql = timeSql(direct, c);
      const ratio = http.p95 / Math.max(sql.p95, 0.001);
      console.log(`| ${c.name} | ${http.rows} | ${http.p50.toFixed(1)} | ${http.p95.toFixed(1)} | ${sql.p50.toFixed(1)} | ${sql.p95.toFixed(1)} | ${ratio.toFixed(1)}× |`);
    }
    direct.close();
  } finally {
    if (server.pid) process.kill(-server.pid, "SIGTERM");
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
