// Ingest over HTTP with concurrent agents: the production server (`next start`) on a fresh
// database, N clients on this machine, each an agent posting its calls as it makes them — one
// call per request (or B per request, like a forwarder), each call's history the previous one's
// plus an answer and a tool result (bench/traffic.ts). Reports calls/s, request p50/p95/max and
// the server's CPU time per call (steadier than calls/s on a machine shared with other work),
// then checks the database holds every call. `--health` instead times GET /api/health (the fixed
// cost of a request), one request at a time. SQLite by default; PostgreSQL with --postgres URL
// (or DATABASE_URL=postgresql://…): a fresh database "sightdesk_bench_ingest_http" on that server.
// Usage: npm run bench:ingest-http [-- --clients 16 --batch 1 --calls 8000 --length 20 --repeat 3 --postgres URL]
//        npm run bench:ingest-http -- --health [--runs 1000] [--route /api/…]
//        --cpu-prof DIR: the server writes a V8 CPU profile there when it stops
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { migrate } from "../lib/db/migrate";
import { dropDatabase, withClient, withDatabase } from "../lib/db/postgresAdmin";
import { providerOf } from "../lib/db/url";
import { nextStartArgs } from "../lib/server/nextStart";
import { stringifyExact } from "../lib/wire/json";
import { freePort } from "../tests/integration/support/server";
import { generateTraffic } from "./traffic";

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const arg = (name: string, fallback: number) => Number(flag(name) ?? fallback);

const CLIENTS = arg("clients", 16);
const BATCH = arg("batch", 1);
const CALLS = arg("calls", BATCH === 1 ? 8_000 : 16_000);
const LENGTH = arg("length", 20);
// JIT, caches and the database file warm up over the first thousand or so calls
const WARMUP_CALLS = arg("warmup", Math.max(1_600, CLIENTS * BATCH * 4));
const RUNS = arg("runs", 1_000);
const REPEAT = arg("repeat", 1);
const HEALTH = process.argv.includes("--health");
const HEALTH_ROUTE = flag("route") ?? "/api/health";
const PROFILE_DIR = flag("cpu-prof");

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");

/** A database for the server: a SQLite file in `dir`, or a fresh database on a PostgreSQL server. */
type Target = { url: string; serverEnv: Record<string, string>; countCalls(): Promise<number>; drop(): Promise<void> };

function sqliteTarget(dir: string): Target {
  const file = path.join(dir, "sightdesk.db");
  return {
    url: `file:${file}`,
    serverEnv: { DATABASE_URL: "" },
    countCalls: async () => {
      const db = new Database(file, { readonly: true });
      try {
        return Number((db.prepare(`SELECT COUNT(*) AS n FROM "Call"`).get() as { n: number }).n);
      } finally {
        db.close();
      }
    },
    drop: async () => undefined,
  };
}

function postgresTarget(serverUrl: string): Target {
  const url = withDatabase(serverUrl, "sightdesk_bench_ingest_http");
  return {
    url,
    serverEnv: { DATABASE_URL: url },
    countCalls: () => withClient(url, async (c) => Number((await c.query(`SELECT COUNT(*) AS n FROM "Call"`)).rows[0].n)),
    drop: () => dropDatabase(url),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(CLIENTS, 1) });

/** One request on a kept-alive connection: status, body and milliseconds to the last byte. */
function request(url: string, method: string, token: string | null, body?: string): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Each client's request bodies, serialized before the clock starts (the load generator shares the
 * 2 cores). Dated now, as an agent's calls are: calls dated months ago make every turn stale at
 * once, and the unsettled-turn check would judge the turns as fast as they arrive, under the
 * locks of their sessions — work a live agent's calls never cause.
 */
function clientBodies(prefix: string, callsPerClient: number): string[][] {
  const startNs = BigInt(Date.now()) * 1_000_000n;
  return Array.from({ length: CLIENTS }, (_, i) =>
    [...generateTraffic({ conversationLength: LENGTH, totalCalls: callsPerClient, batchSize: BATCH, concurrentConversations: BATCH, prefix: `${prefix}${i}-`, startNs })].map((batch) =>
      stringifyExact(BATCH === 1 ? batch[0] : batch),
    ),
  );
}

type Run = { calls: number; seconds: number; times: number[] };

async function drive(url: string, token: string, bodies: string[][]): Promise<Run> {
  const times: number[] = [];
  let calls = 0;
  const started = performance.now();
  await Promise.all(
    bodies.map(async (mine) => {
      for (const body of mine) {
        const res = await request(`${url}/api/ingest/calls`, "POST", token, body);
        if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${res.body.slice(0, 300)}`);
        calls += (JSON.parse(res.body) as { accepted: number }).accepted;
        times.push(res.ms);
      }
    }),
  );
  return { calls, seconds: (performance.now() - started) / 1000, times: times.sort((a, b) => a - b) };
}

async function timeHealth(url: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 50; i++) {
    const res = await request(`${url}${HEALTH_ROUTE}`, "GET", null);
    if (res.status !== 200) throw new Error(`health answered ${res.status}`);
    if (i >= 50) times.push(res.ms);
  }
  return times.sort((a, b) => a - b);
}

/** CPU seconds a process has used so far (user + system), from /proc (Linux; 0 elsewhere). */
function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

type Server = { url: string; token: string; cpu: () => number; stop: () => Promise<void> };

async function startServer(dir: string, target: Target): Promise<Server> {
  const port = await freePort();
  const profile = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
  const server = spawn(process.execPath, [...profile, ...nextStartArgs(".", port, "127.0.0.1")], {
    // the size cap and retention never trim what is measured
    env: {
      ...process.env,
      NODE_ENV: "production",
      SIGHTDESK_DATA_DIR: dir,
      ...target.serverEnv,
      SIGHTDESK_MAX_DB_SIZE_MB: "1000000",
      SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS: "3650",
    },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  const t = performance.now();
  while (!(await fetch(`${url}/api/health`).then((r) => r.ok, () => false))) {
    if (performance.now() - t > 60_000 || server.exitCode !== null) throw new Error("the server did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
  const token = fs.readFileSync(path.join(dir, ".dashboard_token"), "utf8").trim();
  const stop = async () => {
    if (server.exitCode !== null || !server.pid) return;
    process.kill(-server.pid, "SIGTERM");
    await new Promise((r) => server.once("exit", r));
  };
  return { url, token, cpu: () => cpuSeconds(server.pid!), stop };
}

/** One measured run on the running server (ids prefixed with `prefix`); returns calls/s. */
async function measure(server: Server, target: Target, prefix: string): Promise<number> {
  const bodies = clientBodies(prefix, Math.ceil(CALLS / CLIENTS));
  const before = await target.countCalls();
  const serverCpu = server.cpu();
  const ownCpu = process.cpuUsage();
  const run = await drive(server.url, server.token, bodies);
  const serverMs = (server.cpu() - serverCpu) * 1000;
  const own = process.cpuUsage(ownCpu);
  const clientMs = (own.user + own.system) / 1000;
  const stored = (await target.countCalls()) - before;
  const requests = run.times.length;
  const rate = Math.round(run.calls / run.seconds);
  console.log(
    `${CLIENTS} clients × ${BATCH} call${BATCH === 1 ? "" : "s"} per request, conversations of ${LENGTH} calls: ${run.calls} calls in ${requests} requests, ${run.seconds.toFixed(1)} s → ` +
      `${rate} calls/s; request p50 ${percentile(run.times, 50).toFixed(1)} ms, p95 ${percentile(run.times, 95).toFixed(1)} ms, max ${run.times[requests - 1].toFixed(1)} ms; ` +
      `server CPU ${(serverMs / run.calls).toFixed(2)} ms/call (${((serverMs / 1000 / run.seconds) * 100).toFixed(0)} % of a core), clients ${(clientMs / run.calls).toFixed(2)} ms/call; ` +
      `load average ${loadavg()}`,
  );
  if (stored !== run.calls) throw new Error(`the database holds ${stored} new calls, ${run.calls} were acknowledged`);
  return rate;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-ingest-http-"));
  const postgresUrl = flag("postgres") ?? (process.env.DATABASE_URL && providerOf(process.env.DATABASE_URL) === "postgresql" ? process.env.DATABASE_URL : undefined);
  const target = postgresUrl ? postgresTarget(postgresUrl) : sqliteTarget(dir);
  console.log(`Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}; load average ${loadavg()}`);
  console.log(`Database: ${postgresUrl ? "PostgreSQL (fresh database sightdesk_bench_ingest_http)" : "SQLite (WAL, synchronous=NORMAL)"}`);
  await target.drop();
  await migrate(target.url);
  const server = await startServer(dir, target);
  try {
    if (HEALTH) {
      const idle = server.cpu();
      await new Promise((r) => setTimeout(r, 5000));
      const idleShare = (((server.cpu() - idle) * 1000) / 5000) * 100;
      const cpu = server.cpu();
      const times = await timeHealth(server.url);
      const cpuMs = ((server.cpu() - cpu) * 1000) / (RUNS + 50);
      console.log(
        `GET ${HEALTH_ROUTE}, ${RUNS} requests one at a time after 50 warm-up: p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, ` +
          `max ${times[times.length - 1].toFixed(1)} ms; server CPU ${cpuMs.toFixed(2)} ms/request (idle: ${idleShare.toFixed(1)} % of a core); load average ${loadavg()}`,
      );
      return;
    }
    await drive(server.url, server.token, clientBodies("warm", Math.ceil(WARMUP_CALLS / CLIENTS)));
    const rates: number[] = [];
    for (let i = 0; i < REPEAT; i++) rates.push(await measure(server, target, `run${i}-`));
    if (REPEAT > 1) console.log(`median of ${REPEAT}: ${rates.sort((a, b) => a - b)[Math.floor(REPEAT / 2)]} calls/s`);
  } finally {
    agent.destroy();
    await server.stop();
    if (postgresUrl) await target.drop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
