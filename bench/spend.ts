// Spend and saved-view counts on a large store: N calls over 30 days (sessions of 200 calls,
// 10 agents, 6 models, 5 % failed calls with their interruptions, a dead loop in one session of
// 20), then the per-agent spend query (lib/db/queries/spend.ts) over 1 h, 24 h and 7 d, a
// session's cost, and the unresolved counts of 50 saved views in one statement — each timed
// in-process on the database (the HTTP route adds a millisecond or two).
// SQLite by default; PostgreSQL with --postgres URL (a fresh database "sightdesk_bench_spend").
// Usage: npx tsx bench/spend.ts [--calls 1000000 --runs 5 --postgres URL --keep]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { DEFAULT_DETECTION } from "../lib/config/detection";
import { createDb } from "../lib/db/client";
import { quote } from "../lib/db/multiRow";
import { migrate } from "../lib/db/migrate";
import { dropDatabase, withDatabase } from "../lib/db/postgresAdmin";
import { sessionSpend, spendByAgent } from "../lib/db/queries/spend";
import { countViews } from "../lib/db/queries/views";
import { marks, toNumbered } from "../lib/db/sql";
import { DEFAULT_PRICES } from "../lib/domain/pricing";
import type { SavedView } from "../lib/db/generated/client";
import { prng } from "../tests/support/prng";

const flag = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const CALLS = Number(flag("calls") ?? 1_000_000);
const RUNS = Number(flag("runs") ?? 5);
const POSTGRES = flag("postgres");
const KEEP = process.argv.includes("--keep");
const PER_SESSION = 200;
const SESSIONS = Math.ceil(CALLS / PER_SESSION);
const NS_MS = 1_000_000n;
const NOW = BigInt(Date.now()) * NS_MS;
const DAY = 86_400_000n * NS_MS;
const AGENTS = ["CoshNG", "research-bot", "support-agent", "explorer", "planner", "reviewer", "deployer", "triager", "indexer", "scribe"];
const MODELS: [string, string][] = [["openai", "gpt-4o-2024-08-06"], ["anthropic", "claude-sonnet-4-5-20250929"], ["dashscope", "qwen-plus"], ["deepseek", "deepseek-chat"], ["openai", "gpt-4o-mini"], ["openai-compatible", "local-llama"]];


const COLUMNS = {
  Session: ["id", "agentName", "firstSeenNs", "lastSeenNs", "callCount"],
  Call: ["id", "sessionId", "conversationId", "agentName", "provider", "model", "startNs", "endNs", "statusCode", "inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens", "inputCount", "outputCount"],
  Interruption: ["id", "sessionId", "conversationId", "callId", "agentName", "model", "type", "severity", "occurredAtNs", "lastSeenNs", "occurrences", "detail", "fingerprint", "status", "createdAtNs"],
} as const;
type Table = keyof typeof COLUMNS;

function* rows(): Generator<{ table: Table; row: unknown[] }> {
  const rand = prng(7);
  for (let s = 0; s < SESSIONS; s++) {
    const agent = AGENTS[s % AGENTS.length];
    const start = NOW - BigInt(Math.floor(rand() * 30 * 86_400_000)) * NS_MS;
    const loop = s % 20 === 0;
    yield { table: "Session", row: [`s${s}`, agent, start, start + BigInt(PER_SESSION) * 10_000n * NS_MS, PER_SESSION] };
    for (let i = 0; i < PER_SESSION && s * PER_SESSION + i < CALLS; i++) {
      const [provider, model] = MODELS[(s + i) % MODELS.length];
      const at = start + BigInt(i) * 10_000n * NS_MS;
      const conv = `s${s}-c${Math.floor(i / 50)}`;
      const failed = rand() < 0.05;
      const id = `s${s}-k${i}`;
      const input = 500 + Math.floor(rand() * 20_000);
      yield { table: "Call", row: [id, `s${s}`, conv, agent, provider, model, at, at + 2000n * NS_MS, failed ? 429 : 200, input, failed ? 0 : 300, Math.floor(input / 3), 0, 1, 1] };
      if (failed) yield { table: "Interruption", row: [`i-${id}`, `s${s}`, conv, id, agent, model, "rate_limit", "medium", at + 2000n * NS_MS, at + 2000n * NS_MS, 1, "{}", "fp", "open", at] };
    }
    if (loop) {
      const at = start + 20n * 10_000n * NS_MS + 2000n * NS_MS;
      yield { table: "Interruption", row: [`loop-${s}`, `s${s}`, `s${s}-c0`, `s${s}-k20`, agent, null, "dead_loop", "critical", at, at + 20n * 10_000n * NS_MS, 21, JSON.stringify({ rule: "tool_sequence_repetition", repeat_count: 5 }), "fp-loop", "open", at] };
    }
  }
}

const BATCH = 500;
const insertSql = (table: Table, n: number) => `INSERT INTO ${quote(table)} (${COLUMNS[table].map(quote).join(",")}) VALUES ${Array.from({ length: n }, () => `(${marks(COLUMNS[table].length)})`).join(",")}`;

async function load(insert: (table: Table, batch: unknown[][]) => Promise<void>) {
  const pending: Record<Table, unknown[][]> = { Session: [], Call: [], Interruption: [] };
  for (const { table, row } of rows()) {
    pending[table].push(row);
    if (pending[table].length >= BATCH) await insert(table, pending[table].splice(0));
  }
  for (const t of Object.keys(pending) as Table[]) if (pending[t].length) await insert(t, pending[t]);
}

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  const ms: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    result = await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} median ${ms[Math.floor(ms.length / 2)].toFixed(1).padStart(8)} ms   min ${ms[0].toFixed(1).padStart(8)} ms`);
  return result!;
}

async function main() {
  let url: string;
  let cleanup = async () => undefined as void;
  const t0 = performance.now();
  if (POSTGRES) {
    url = withDatabase(POSTGRES, "sightdesk_bench_spend");
    await dropDatabase(url);
    await migrate(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await load(async (table, batch) => void (await client.query(toNumbered(insertSql(table, batch.length)), batch.flat().map((v) => (typeof v === "bigint" ? v.toString() : v)))));
    await client.query("ANALYZE");
    await client.end();
    cleanup = () => dropDatabase(url);
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-spend-"));
    url = `file:${path.join(dir, "bench.db")}`;
    await migrate(url);
    const sqlite = new Database(path.join(dir, "bench.db"));
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = OFF");
    const stmts = new Map<string, Database.Statement>();
    sqlite.exec("BEGIN");
    await load(async (table, batch) => {
      const sql = insertSql(table, batch.length);
      let st = stmts.get(sql);
      if (!st) stmts.set(sql, (st = sqlite.prepare(sql)));
      st.run(...batch.flat());
    });
    sqlite.exec("COMMIT");
    sqlite.close();
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`loaded ${CALLS.toLocaleString()} calls in ${SESSIONS.toLocaleString()} sessions (${POSTGRES ? "PostgreSQL" : "SQLite"}) in ${((performance.now() - t0) / 1000).toFixed(0)} s; load ${os.loadavg()[0].toFixed(1)}`);

  const db = createDb(url);
  const q = (hours: bigint) => ({ startNs: NOW - hours * 3_600_000n * NS_MS, endNs: NOW });
  for (const [label, hours] of [["1 h", 1n], ["24 h", 24n], ["7 d", 168n]] as const) {
    const r = await timed(`spend per agent, ${label}`, () => spendByAgent(db, q(hours), DEFAULT_PRICES, DEFAULT_DETECTION.loop));
    console.log(`${"".padEnd(44)} ${r.total.calls.toLocaleString()} calls, $${r.total.cost_usd.toFixed(2)}, wasted $${r.total.wasted_usd.toFixed(2)} (${r.total.wasted_calls.toLocaleString()} calls)`);
  }
  await timed("one session's cost", () => sessionSpend(db, "s20", DEFAULT_PRICES));
  const views = Array.from({ length: 50 }, (_, i) => ({
    id: `v${i}`,
    query: [`agent_name=${AGENTS[i % AGENTS.length]}`, "severity=critical,high", "interruption_type=rate_limit", "range=7d", "tab=review", "q=timeout"].slice(0, 1 + (i % 6)).join("&"),
  })) as SavedView[];
  await timed("50 saved views' counts (one statement)", () => countViews(db, views, { key: "user:x", name: "user:x", me: "x", admin: false }, NOW));
  await db.$disconnect();
  if (KEEP) console.log(`kept ${url}`);
  else await cleanup();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
