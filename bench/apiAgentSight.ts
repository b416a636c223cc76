// SightDesk beside AgentSight on AgentSight's own store: a generated interruption_events.db
// (AgentSight's DDL, bench/agentsightStore.ts) imported with `sightdesk import agentsight` (timed:
// rows per second), then each AgentSight query run as AgentSight runs it — the same SQL on the
// same file through SQLite, no HTTP, no JSON — and the matching SightDesk route over HTTP on the
// production server, as a client sees it (request, response, JSON parsing), in one run; beside
// them the floor of the whole session-counts answer (its bytes from a bare server, staticAnswer.ts).
// Usage: npm run bench:api -- --agentsight [--rows 1000000 --runs 60 --keep DIR --postgres URL]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { migrate } from "../lib/db/migrate";
import { dropDatabase, withDatabase } from "../lib/db/postgresAdmin";
import { providerOf } from "../lib/db/url";
import { writeAgentSightStore } from "./agentsightStore";
import { serveStatic } from "./staticAnswer";
import { flag, getJson, machineLine, startServer, timeRuns, type Timing } from "./serverTiming";

const DAY_NS = 86_400_000_000_000n;
const AGENTSIGHT_UNASSIGNED = "__unassigned__";

type Case = {
  name: string;
  /** AgentSight's statement and its parameters (null: AgentSight has no such query) */
  agentsight: { sql: string; params: unknown[] } | null;
  route: string;
  /** Accept-Encoding (default: what fetch sends, gzip among others) */
  encoding?: string;
  /** asked of the bare server that sends SightDesk's whole session-counts answer prebuilt (staticAnswer.ts) */
  floor?: true;
};

const RECORD = `id, interruption_id, session_id, trace_id, conversation_id, call_id, pid, agent_name, interruption_type, severity, occurred_at_ns, detail, resolved`;

// The statements AgentSight's interruption store runs for these routes (its list, stats and
// per-session breakdown with the dashboard's arguments), with the window as its API sets it.
function cases(start: bigint, end: bigint): Case[] {
  const win = `start_ns=${start}&end_ns=${end}`;
  const sessionCounts = {
    sql: `SELECT COALESCE(session_id, ?) AS sid, severity, interruption_type, COUNT(*) AS cnt FROM interruption_events
          WHERE resolved = 0 AND occurred_at_ns BETWEEN ? AND ? AND (? IS NULL OR agent_name = ?)
          GROUP BY sid, severity, interruption_type ORDER BY sid, cnt DESC`,
    params: [AGENTSIGHT_UNASSIGNED, start, end, null, null],
  };
  return [
    {
      name: "list, limit 200",
      agentsight: { sql: `SELECT ${RECORD} FROM interruption_events WHERE occurred_at_ns BETWEEN ? AND ? ORDER BY occurred_at_ns DESC LIMIT ?`, params: [start, end, 200] },
      route: `/api/interruptions?${win}`,
    },
    {
      name: "list agent + type + unresolved",
      agentsight: {
        sql: `SELECT ${RECORD} FROM interruption_events WHERE occurred_at_ns BETWEEN ? AND ? AND agent_name = ? AND interruption_type = ? AND resolved = ? ORDER BY occurred_at_ns DESC LIMIT ?`,
        params: [start, end, "planner", "rate_limit", 0, 200],
      },
      route: `/api/interruptions?${win}&agent_name=planner&interruption_type=rate_limit&resolved=false`,
    },
    {
      name: "stats",
      agentsight: {
        sql: `SELECT interruption_type, severity, COUNT(*) AS cnt FROM interruption_events WHERE occurred_at_ns BETWEEN ? AND ? AND resolved = ? GROUP BY interruption_type, severity ORDER BY cnt DESC`,
        params: [start, end, 0],
      },
      route: `/api/interruptions/stats?${win}`,
    },
    { name: "session-counts (unresolved)", agentsight: sessionCounts, route: `/api/interruptions/session-counts?${win}` },
    // the same answer not compressed: what compression costs at this size (≈ 9 MB of JSON)
    { name: "session-counts, Accept-Encoding: identity", agentsight: sessionCounts, route: `/api/interruptions/session-counts?${win}`, encoding: "identity" },
    // the least any HTTP server can take for that answer: its bytes prebuilt, sent by bare Node
    { name: "floor: the same answer prebuilt, bare Node server", agentsight: sessionCounts, route: "/", floor: true },
    { name: "floor, Accept-Encoding: identity", agentsight: sessionCounts, route: "/", encoding: "identity", floor: true },
    // AgentSight has no top-N: its dashboard reads the whole breakdown above
    { name: "session-counts top 10 by total", agentsight: sessionCounts, route: `/api/interruptions/session-counts?${win}&limit=10&sort=total` },
    { name: "session-counts top 10 by severity", agentsight: sessionCounts, route: `/api/interruptions/session-counts?${win}&limit=10&sort=severity` },
  ];
}

const fmt = (t: Timing | null) => (t ? `${t.p50.toFixed(1)} / ${t.p95.toFixed(1)}` : "—");

/** `sightdesk import agentsight` (the CLI, as a user runs it) into `env`'s database; seconds taken. */
function importStore(storeDir: string, env: Record<string, string>): number {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith("SIGHTDESK_") || k === "DATABASE_URL") delete base[k];
  const t = performance.now();
  const run = spawnSync(process.execPath, ["bin/sightdesk.mjs", "import", "agentsight", storeDir], { env: { ...base, ...env }, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (run.status !== 0) throw new Error(`import failed (${run.status}):\n${run.stdout}`);
  console.log(run.stdout.trim());
  return (performance.now() - t) / 1000;
}

export async function runAgentSightComparison(): Promise<void> {
  const rows = Number(flag("rows") ?? 1_000_000);
  const runs = Number(flag("runs") ?? 60);
  const keep = flag("keep");
  const dir = keep ? path.resolve(keep) : fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-agentsight-"));
  const storeDir = path.join(dir, "agentsight");
  const dataDir = path.join(dir, "sightdesk");
  const postgres = flag("postgres") ?? (process.env.DATABASE_URL && providerOf(process.env.DATABASE_URL) === "postgresql" ? process.env.DATABASE_URL : undefined);
  const databaseUrl = postgres ? withDatabase(postgres, "sightdesk_bench_agentsight") : `file:${path.join(dataDir, "sightdesk.db")}`;
  const env = { SIGHTDESK_DATA_DIR: dataDir, DATABASE_URL: postgres ? databaseUrl : "" };
  console.log(`Machine: ${machineLine()}`);

  // The store's "now" is kept beside it, so a kept store is measured over the same day.
  const nowFile = path.join(storeDir, "now_ns");
  const reuse = keep !== undefined && fs.existsSync(nowFile) && fs.existsSync(path.join(dataDir, ".imported"));
  if (!reuse) {
    fs.rmSync(storeDir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.mkdirSync(storeDir, { recursive: true });
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    let t = performance.now();
    writeAgentSightStore(storeDir, { rows, nowNs });
    fs.writeFileSync(nowFile, String(nowNs));
    console.log(`AgentSight store: ${rows} interruptions over 7 days, written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    if (postgres) await dropDatabase(databaseUrl);
    t = performance.now();
    await migrate(databaseUrl);
    console.log(`SightDesk database migrated in ${((performance.now() - t) / 1000).toFixed(1)} s (${postgres ? "PostgreSQL" : "SQLite"})`);
    console.log(`Import: load average before ${os.loadavg()[0].toFixed(2)}`);
    const seconds = importStore(storeDir, env);
    console.log(`Import: ${rows} rows in ${seconds.toFixed(1)} s = ${Math.round(rows / seconds)} rows/s (load average after ${os.loadavg()[0].toFixed(2)})`);
    fs.writeFileSync(path.join(dataDir, ".imported"), "");
  }
  const endNs = BigInt(fs.readFileSync(nowFile, "utf8"));
  const startNs = endNs - DAY_NS;

  const store = new Database(path.join(storeDir, "interruption_events.db"), { readonly: true });
  const window = store
    .prepare(`SELECT COUNT(*) AS "all", SUM(resolved = 0) AS "open", COUNT(DISTINCT CASE WHEN resolved = 0 THEN COALESCE(session_id, '') END) AS "sessions" FROM interruption_events WHERE occurred_at_ns BETWEEN ? AND ?`)
    .get(startNs, endNs) as { all: number; open: number; sessions: number };
  console.log(`Last 24 h: ${window.all} interruptions, ${window.open} unresolved, in ${window.sessions} sessions`);

  const server = await startServer(dataDir, env);
  let floor: Awaited<ReturnType<typeof serveStatic>> | null = null;
  try {
    const answerFile = path.join(dir, "session-counts.json");
    const whole = await fetch(`${server.url}/api/interruptions/session-counts?start_ns=${startNs}&end_ns=${endNs}`, { headers: { authorization: `Bearer ${server.token}`, "accept-encoding": "identity" } });
    fs.writeFileSync(answerFile, Buffer.from(await whole.arrayBuffer()));
    floor = await serveStatic(answerFile);
    console.log(`The whole session-counts answer: ${(fs.statSync(answerFile).size / 1e6).toFixed(1)} MB of JSON`);
    console.log(`\n${runs} runs each after 5 warm-up runs, one query at a time; p50 / p95 in ms; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
    console.log("| query (24 h) | SightDesk rows | AgentSight SQL p50 / p95 | SightDesk HTTP p50 / p95 | SightDesk p95 / AgentSight p95 |\n|---|---|---|---|---|");
    for (const c of cases(startNs, endNs)) {
      let answer: unknown;
      const base = c.floor ? floor.url : server.url;
      const http = await timeRuns(runs, async () => void (answer = await getJson(base, server.token, c.route, c.encoding)));
      const stmt = c.agentsight ? store.prepare(c.agentsight.sql) : null;
      const sql = stmt && c.agentsight ? await timeRuns(runs, () => stmt.all(...c.agentsight!.params)) : null;
      const ratio = sql ? `${(http.p95 / sql.p95).toFixed(2)}` : "—";
      console.log(`| ${c.name} | ${Array.isArray(answer) ? answer.length : 1} | ${fmt(sql)} | ${fmt(http)} | ${ratio} |`);
    }
    console.log(`\nload average afterwards ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  } finally {
    floor?.stop();
    server.stop();
    store.close();
    if (!keep) {
      if (postgres) await dropDatabase(databaseUrl);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
