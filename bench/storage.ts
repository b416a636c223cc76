// Size-cap benchmark: the production server (`next start`) on a fresh database with a small
// max_db_size_mb and a short check_interval_secs, under sustained demo traffic over the HTTP
// ingest API, with the database's size sampled every second. Shows whether the sweeper keeps
// the size under its cap, by how much and for how long it goes over between sweeps, and what
// the trimming removed.
//
// Traffic: copies of the demo (lib/demo: four agents, every interruption type, ~5 % failing
// calls), each copy new processes with new session, conversation and call ids, sent by
// `--workers` clients at once as fast as the server takes them. Copy k starts k × 10 minutes
// after a point 14 days ago (a time-lapse of a team's traffic, so "oldest" means older copies).
// Three copies behind the newest, the team resolves the interruptions of two sessions in three
// (bulk resolve by session, as from the inbox).
//
// Size: what the sweeper compares with the cap. SQLite — the database file plus its WAL;
// PostgreSQL (DATABASE_URL=postgresql://…: a fresh database on that server, dropped after) —
// the bytes SightDesk's tables occupy (lib/sweeps/postgresSpace.ts: on-disk size less the space
// plain VACUUM made reusable), printed beside their on-disk size (pg_total_relation_size).
// Sweeps on PostgreSQL are seen by polling pg_stat_activity every 100 ms for the sweeper's
// DELETE and VACUUM statements: ingest requests that overlapped a trim are reported apart.
//
// Usage: npm run bench:storage [-- --minutes 3 --cap-mb 20 --interval 2 --workers 2 --every 10]
// Exits 1 when the size stays above the cap for longer than two check intervals.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { CONFIG_KEYS, envName } from "../lib/config/load";
import { migrate } from "../lib/db/migrate";
import { createDatabase, dropDatabase, withDatabase } from "../lib/db/postgresAdmin";
import { providerOf } from "../lib/db/url";
import { demoRequests, type DemoRequest } from "../lib/demo/load";
import { DEMO_SPAN_MINUTES, generateDemo, type DemoData } from "../lib/demo/scenarios";
import { deriveSessionId } from "../lib/ingest/keys";
import { occupiedBytes, POSTGRES_TABLES_SQL, toTableSpace } from "../lib/sweeps/postgresSpace";
import { startServer, type TestServer } from "../tests/integration/support/server";
import { buildDir } from "../lib/config/buildDir";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name}: expected a positive number`);
  return v;
};

const MINUTES = arg("minutes", 3);
const CAP_MB = arg("cap-mb", 20);
const INTERVAL_S = arg("interval", 2);
const WORKERS = arg("workers", 2);
const EVERY_S = arg("every", 10);
const MB = 1024 * 1024;
const CAP = CAP_MB * MB;
const NS_PER_MIN = 60_000_000_000n;
const COPY_STEP = 10n * NS_PER_MIN;
const T0 = BigInt(Date.now()) * 1_000_000n - 14n * 24n * 60n * NS_PER_MIN;
const RESOLVE_LAG = 3;

// ---------------------------------------------------------------------------------------------
// Where the data goes and how big it is

type Store = {
  kind: "sqlite" | "postgresql";
  /** extra server environment */
  env: Record<string, string>;
  /** bytes compared with the cap; the WAL's share of them (SQLite) or the bytes on disk (PostgreSQL) */
  size: () => Promise<{ bytes: number; wal: number; disk: number }>;
  /** what the sweeper is doing now (PostgreSQL), null when nothing or unknown */
  sweeping: () => Promise<"delete" | "vacuum" | null>;
  /** the first column of a query's rows, as text */
  column: (sql: string) => Promise<string[]>;
  close: () => Promise<void>;
};

const fileSize = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);

function sqliteStore(server: TestServer): Store {
  const file = server.dbFile!;
  return {
    kind: "sqlite",
    env: {},
    size: async () => ({ bytes: fileSize(file) + fileSize(`${file}-wal`), wal: fileSize(`${file}-wal`), disk: fileSize(file) + fileSize(`${file}-wal`) }),
    sweeping: async () => null,
    // opened only after the traffic, for the row counts: a reader would hold back checkpoints
    column: async (sql) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(sql).pluck().all().map(String);
      } finally {
        db.close();
      }
    },
    close: async () => undefined,
  };
}

async function postgresStore(serverUrl: string): Promise<Store> {
  const url = withDatabase(serverUrl, `sightdesk_bench_storage_${process.pid}`);
  await dropDatabase(url);
  await createDatabase(url);
  await migrate(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const watcher = new pg.Client({ connectionString: url }); // its own connection: polled every 100 ms
  await watcher.connect();
  return {
    kind: "postgresql",
    env: { DATABASE_URL: url },
    size: async () => {
      const tables = (await client.query(POSTGRES_TABLES_SQL)).rows.map(toTableSpace); // what the sweeper measures
      return { bytes: tables.reduce((sum, t) => sum + occupiedBytes(t), 0), wal: 0, disk: tables.reduce((sum, t) => sum + t.total, 0) };
    },
    // the sweeper's statements (ingest never deletes), running or finished within the last poll
    sweeping: async () => {
      const { rows } = await watcher.query<{ vacuum: boolean }>(`SELECT bool_or(query LIKE 'VACUUM%') AS vacuum FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND (query LIKE 'DELETE%' OR query LIKE 'VACUUM%')
          AND (state <> 'idle' OR state_change > now() - interval '150 milliseconds')`);
      return rows[0].vacuum === null ? null : rows[0].vacuum ? "vacuum" : "delete";
    },
    column: async (sql) => (await client.query({ text: sql, rowMode: "array" })).rows.map((r: unknown[]) => String(r[0])),
    close: async () => {
      await client.end();
      await watcher.end();
      await dropDatabase(url);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Traffic

type Stats = {
  calls: number; interruptions: number; requests: number; errors: string[]; latencies: number[];
  /** ingest requests: when each started and ended (ms, performance.now()) */
  ingest: { start: number; end: number }[];
  lastDone: number; longestGap: number; resolved: number;
};

const stats: Stats = { calls: 0, interruptions: 0, requests: 0, errors: [], latencies: [], ingest: [], lastDone: 0, longestGap: 0, resolved: 0 };

/** The sessions a copy's calls land in (sent, or derived from agent + pid + host as ingest does). */
function sessionsOf(data: DemoData): string[] {
  const ids = new Set<string>();
  for (const c of [...data.calls, ...data.exchanges]) ids.add(c.session_id ?? deriveSessionId(c.agent_name, c.pid, c.host));
  return [...ids].sort();
}

async function send(server: TestServer, route: string, body: unknown, started: number): Promise<Record<string, number> | null> {
  const t = performance.now();
  let res: Response;
  try {
    res = await server.api(route, { method: "POST", body: JSON.stringify(body) });
  } catch (e) {
    stats.errors.push(`${route}: ${(e as Error).message}`);
    return null;
  }
  const text = await res.text();
  const done = performance.now();
  stats.latencies.push(done - t);
  if (route.startsWith("/api/ingest/")) stats.ingest.push({ start: t, end: done });
  stats.longestGap = Math.max(stats.longestGap, done - Math.max(stats.lastDone, started));
  stats.lastDone = done;
  stats.requests += 1;
  if (!res.ok) {
    stats.errors.push(`${route}: ${res.status} ${text.slice(0, 200)}`);
    return null;
  }
  return JSON.parse(text) as Record<string, number>;
}

async function sendCopy(server: TestServer, requests: DemoRequest[], started: number): Promise<void> {
  for (const r of requests) {
    const out = await send(server, `/api/ingest/${r.route}`, r.payloads, started);
    stats.calls += out?.accepted ?? 0;
    stats.interruptions += out?.interruptions ?? 0;
  }
}

/** The team triages an older copy: resolves everything in two sessions of three. */
async function triage(server: TestServer, copy: { base: bigint; sessions: string[] }, started: number): Promise<void> {
  const window = { start_ns: String(copy.base - NS_PER_MIN), end_ns: String(copy.base + BigInt(DEMO_SPAN_MINUTES + 60) * NS_PER_MIN) };
  for (const [i, session_id] of copy.sessions.entries()) {
    if (i % 3 === 2) continue;
    const out = await send(server, "/api/interruptions/bulk", { action: "resolve", filter: { ...window, session_id } }, started);
    stats.resolved += out?.changed ?? 0;
  }
}

/** Sends copies until `until`; returns each copy's sessions. */
async function traffic(server: TestServer, until: number, started: number): Promise<string[][]> {
  let next = 0;
  const copies: { base: bigint; sessions: string[] }[] = [];
  const worker = async () => {
    while (performance.now() < until) {
      const k = next++;
      const base = T0 + BigInt(k) * COPY_STEP;
      const data = generateDemo(base, k + 1);
      copies[k] = { base, sessions: sessionsOf(data) };
      await sendCopy(server, demoRequests(data), started);
      if (k >= RESOLVE_LAG) await triage(server, copies[k - RESOLVE_LAG], started);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return copies.map((c) => c.sessions);
}

// ---------------------------------------------------------------------------------------------
// Sampling and the summary

type Sample = { t: number; bytes: number; wal: number; disk: number; calls: number };

const mb = (b: number) => (b / MB).toFixed(1);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Stretches of consecutive samples over the cap: from the first sample above it to the first one back under. */
function overCap(samples: Sample[]): { start: number; seconds: number; peak: number; open: boolean }[] {
  const out: { start: number; seconds: number; peak: number; open: boolean }[] = [];
  let cur: (typeof out)[number] | null = null;
  for (const s of samples) {
    if (s.bytes > CAP) {
      if (!cur) out.push((cur = { start: s.t, seconds: 0, peak: 0, open: true }));
      cur.peak = Math.max(cur.peak, s.bytes);
      cur.seconds = s.t - cur.start;
    } else if (cur) {
      cur.seconds = s.t - cur.start;
      cur.open = false;
      cur = null;
    }
  }
  return out;
}

function machine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}`;
}

const load = () => os.loadavg()[0].toFixed(1);

/**
 * The stretches when the sweeper was deleting rows and vacuuming what it deleted: polls that saw
 * its statements, merged when under a second apart, kept when they include a VACUUM (a sweep
 * that found nothing to delete runs its DELETE statements too, briefly).
 */
function sweepWindows(seen: { t: number; what: "delete" | "vacuum" }[]): { start: number; end: number }[] {
  const out: { start: number; end: number; vacuum: boolean }[] = [];
  for (const { t, what } of seen) {
    const last = out[out.length - 1];
    if (last && t - last.end < 1000) last.end = t;
    else out.push({ start: t - 100, end: t, vacuum: false }); // the poll before saw none: it began within the last 100 ms
    out[out.length - 1].vacuum ||= what === "vacuum";
  }
  return out.filter((w) => w.vacuum);
}

async function main() {
  const distDir = buildDir();
  if (!fs.existsSync(path.join(distDir, "BUILD_ID"))) throw new Error(`No production build in ${distDir}: run \`npx next build\` first (npm run bench:storage does).`);
  const pgUrl = process.env.DATABASE_URL && providerOf(process.env.DATABASE_URL) === "postgresql" ? process.env.DATABASE_URL : null;
  delete process.env.TEST_DATABASE_URL; // the server helper's own database stays a SQLite file
  const capKey = Object.keys(CONFIG_KEYS).find((k) => k.endsWith("max_db_size_mb"))!;
  const intervalKey = Object.keys(CONFIG_KEYS).find((k) => k.endsWith("check_interval_secs"))!;
  const pgStore = pgUrl ? await postgresStore(pgUrl) : null;
  const server = await startServer({ [envName(capKey)]: String(CAP_MB), [envName(intervalKey)]: String(INTERVAL_S), ...pgStore?.env }).catch(async (e) => {
    await pgStore?.close();
    throw e;
  });
  const store = pgStore ?? sqliteStore(server);
  console.log(`Machine: ${machine()}`);
  console.log(
    `Server: next start (${distDir}) on ${store.kind}, ${envName(capKey)}=${CAP_MB}, ${envName(intervalKey)}=${INTERVAL_S}; ` +
      `${WORKERS} clients sending demo copies for ${MINUTES} min, size sampled every second\n`,
  );

  const samples: Sample[] = [];
  const started = performance.now();
  const until = started + MINUTES * 60_000;
  let stop = false;
  let printed = { t: 0, calls: 0, latencies: 0 };
  const sqlite = store.kind === "sqlite";
  console.log(
    `| elapsed s | calls sent | calls/s | ${sqlite ? "file + WAL MB | WAL MB" : "occupied MB | on disk MB"} | cap MB | slowest request ms | load |\n|---|---|---|---|---|---|---|---|`,
  );
  const loadAtStart = load();
  const sweepSeen: { t: number; what: "delete" | "vacuum" }[] = [];
  const poller = (async () => {
    while (!stop) {
      const what = await store.sweeping();
      if (what) sweepSeen.push({ t: performance.now(), what });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const sampler = (async () => {
    while (!stop) {
      const { bytes, wal, disk } = await store.size();
      const t = (performance.now() - started) / 1000;
      samples.push({ t, bytes, wal, disk, calls: stats.calls });
      if (t - printed.t >= EVERY_S - 0.5) {
        const slowest = Math.max(0, ...stats.latencies.slice(printed.latencies));
        const rate = (stats.calls - printed.calls) / (t - printed.t);
        console.log(`| ${t.toFixed(0)} | ${stats.calls} | ${rate.toFixed(0)} | ${mb(bytes)} | ${mb(sqlite ? wal : disk)} | ${CAP_MB} | ${slowest.toFixed(0)} | ${load()} |`);
        printed = { t, calls: stats.calls, latencies: stats.latencies.length };
      }
      await new Promise((r) => setTimeout(r, 1000 - ((performance.now() - started) % 1000)));
    }
  })();

  let exitCode = 0;
  try {
    const copySessions = await traffic(server, until, started);
    const copies = copySessions.length;
    const trafficSeconds = (performance.now() - started) / 1000;
    // let the sweeper catch up with the last traffic: at least two more intervals, until under the cap (at most a minute)
    const quiet = performance.now();
    const settled = () => performance.now() - quiet > 2 * INTERVAL_S * 1000 + 1500 && samples[samples.length - 1].bytes <= CAP;
    while (!settled() && performance.now() - quiet < 60_000) await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await sampler;
    await poller;
    const loadAtEnd = load();

    const episodes = overCap(samples);
    const longest = episodes.reduce((a, e) => Math.max(a, e.seconds), 0);
    const worst = episodes.reduce<(typeof episodes)[number] | null>((a, e) => (!a || e.peak > a.peak ? e : a), null);
    const peak = samples.reduce((a, s) => (s.bytes > a.bytes ? s : a), samples[0]);
    const final = samples[samples.length - 1];
    const secondsOver = episodes.reduce((a, e) => a + e.seconds, 0);
    const drops = samples.slice(1).filter((s, i) => samples[i].bytes - s.bytes > 0.1 * CAP);
    const lows = drops.map((s) => s.bytes).sort((a, b) => a - b);
    const lat = [...stats.latencies].sort((a, b) => a - b);
    const count = async (table: string, where = "") => Number((await store.column(`SELECT COUNT(*) FROM "${table}"${where ? ` WHERE ${where}` : ""}`))[0]);
    const stored = { calls: await count("Call"), sessions: await count("Session"), interruptions: await count("Interruption"), resolved: await count("Interruption", `"status" = 'resolved'`), activity: await count("InterruptionActivity") };
    const copyOf = new Map(copySessions.flatMap((sessions, k) => sessions.map((id) => [id, k] as const)));
    const keptCopies = [...new Set((await store.column(`SELECT DISTINCT "sessionId" FROM "Call"`)).map((id) => copyOf.get(id)))]
      .filter((k): k is number => k !== undefined)
      .sort((a, b) => a - b);
    const sentSessions = copySessions.reduce((a, c) => a + c.length, 0);

    console.log(`\nTraffic: ${copies} demo copies, ${stats.calls} calls accepted in ${trafficSeconds.toFixed(0)} s (${(stats.calls / trafficSeconds).toFixed(0)} calls/s), ` +
      `${stats.interruptions} interruptions opened, ${stats.resolved} resolved by the team, ${stats.requests} requests, ${stats.errors.length} failed`);
    for (const e of stats.errors.slice(0, 5)) console.log(`  failed: ${e}`);
    console.log(`Request latency: p50 ${pct(lat, 50).toFixed(0)} ms, p95 ${pct(lat, 95).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms, max ${pct(lat, 100).toFixed(0)} ms; longest time without a completed request ${(stats.longestGap / 1000).toFixed(1)} s`);
    const windows = sweepWindows(sweepSeen);
    if (windows.length) {
      const overlaps = (r: { start: number; end: number }) => windows.some((w) => r.start < w.end && r.end > w.start);
      const ms = (rs: { start: number; end: number }[]) => rs.map((r) => r.end - r.start).sort((a, b) => a - b);
      const during = ms(stats.ingest.filter(overlaps));
      const outside = ms(stats.ingest.filter((r) => !overlaps(r)));
      const swept = windows.reduce((a, w) => a + w.end - w.start, 0) / 1000;
      const summary = (l: number[]) => `p50 ${pct(l, 50).toFixed(0)} ms, p99 ${pct(l, 99).toFixed(0)} ms, slowest ${pct(l, 100).toFixed(0)} ms`;
      console.log(`Sweeps seen trimming (deleting, then vacuuming): ${windows.length} stretches, ${swept.toFixed(0)} s in all`);
      console.log(`Ingest requests during a trim: ${during.length}, ${summary(during)}; outside: ${outside.length}, ${summary(outside)}`);
    }
    console.log(`Load average (1 min): ${loadAtStart} at the start, ${loadAtEnd} at the end (the table's last column: during the run)`);
    const under = samples.find((x) => x.t >= trafficSeconds && x.bytes <= CAP);
    console.log(
      `Size: cap ${CAP_MB} MB; peak ${mb(peak.bytes)} MB at ${peak.t.toFixed(0)} s${sqlite ? ` (WAL ${mb(peak.wal)} MB)` : ""}; ` +
        `final ${mb(final.bytes)} MB, ${final.t.toFixed(0)} s; after the traffic stopped: ${under ? `under the cap ${(under.t - trafficSeconds).toFixed(0)} s later` : "still over the cap"}`,
    );
    if (!sqlite) {
      const diskPeak = samples.reduce((a, x) => Math.max(a, x.disk), 0);
      console.log(`On disk (pg_total_relation_size, freed space kept for reuse): peak ${mb(diskPeak)} MB, final ${mb(final.disk)} MB`);
    }
    console.log(
      `Over the cap: ${episodes.length} times, ${secondsOver.toFixed(0)} s of ${final.t.toFixed(0)} s (${((100 * secondsOver) / final.t).toFixed(0)} %); ` +
        `longest ${longest.toFixed(0)} s (${(longest / INTERVAL_S).toFixed(1)} check intervals); largest overshoot ${worst ? `${mb(worst.peak - CAP)} MB (${((100 * (worst.peak - CAP)) / CAP).toFixed(0)} %) lasting ${worst.seconds.toFixed(0)} s` : "none"}`,
    );
    const longestFirst = [...episodes].sort((a, b) => b.seconds - a.seconds).slice(0, 5);
    if (episodes.length) {
      console.log(`  longest stretches over the cap: ${longestFirst.map((e) => `${e.seconds.toFixed(0)} s from ${e.start.toFixed(0)} s (peak ${mb(e.peak)} MB)`).join("; ")}`);
      const firstDrop = drops.find((s) => s.t >= episodes[0].start);
      const lastDrop = drops[drops.length - 1];
      console.log(
        `  first over the cap at ${episodes[0].start.toFixed(0)} s; space given back first at ${firstDrop ? `${firstDrop.t.toFixed(0)} s` : "— (never)"}, last at ${lastDrop ? `${lastDrop.t.toFixed(0)} s` : "—"}`,
      );
    }
    console.log(
      `Drops of more than 10 % of the cap between two samples (a sweep's WAL checkpoint or VACUUM): ${drops.length}` +
        (drops.length ? `, down to ${mb(lows[0])}–${mb(lows[lows.length - 1])} MB (target 90 % = ${mb(0.9 * CAP)} MB)` : "") +
        `; the sweeper ticked about ${Math.floor(final.t / INTERVAL_S)} times`,
    );
    const trimmed = (sent: number, left: number) => `${left} of ${sent} kept (${sent - left} trimmed)`;
    console.log(`Rows: calls ${trimmed(stats.calls, stored.calls)}; sessions ${trimmed(sentSessions, stored.sessions)}; interruptions ${stored.interruptions} kept, ${stored.resolved} of them resolved; ${stored.activity} activity rows (kept storage.activity.retention_days; the cap trims only those of interruptions gone)`);
    if (keptCopies.length) console.log(`Calls kept are from ${keptCopies.length} of the ${copies} copies (copies ${keptCopies[0] + 1}–${keptCopies[keptCopies.length - 1] + 1}, oldest trimmed first)`);

    if (longest > 2 * INTERVAL_S) {
      exitCode = 1;
      console.log(`\nFAIL: the size stayed above the cap for ${longest.toFixed(0)} s, longer than two check intervals (${2 * INTERVAL_S} s)`);
      if (drops.length === 0) console.log(`The size never dropped: the server does not seem to enforce max_db_size_mb on ${store.kind} (see its log for "[sweeps]" lines).`);
      else if (!under) console.log(`The size was still over the cap a minute after the traffic stopped: sweeps are failing or stuck (see the server log for "[sweeps]" lines).`);
    } else console.log(`\nOK: never above the cap for longer than two check intervals (${2 * INTERVAL_S} s)`);
  } finally {
    stop = true;
    await sampler.catch(() => undefined);
    await server.stop();
    await store.close();
  }
  process.exit(exitCode);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
