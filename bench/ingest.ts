// Ingest benchmark: generated agent traffic through the ingest code path (validation, storage,
// detection) into a fresh SQLite database; reports calls/second and stored bytes per call for
// conversations of 10 and of 200 calls. Usage: npm run bench [-- --calls 200000]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ingestCallBatch } from "../lib/api/ingest";
import { createDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { generateTraffic } from "./traffic";

type Result = { scenario: string; calls: number; seconds: number; callsPerSecond: number; bytesPerCall: number; interruptions: number };

const BATCH = Number(process.env.BENCH_BATCH ?? 500);

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function run(scenario: string, conversationLength: number, totalCalls: number, dir: string): Promise<Result> {
  const file = path.join(dir, `${scenario}.db`);
  const url = `file:${file}`;
  await migrate(url);
  const db = createDb(url);
  await db.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
  let calls = 0;
  let interruptions = 0;
  const started = process.hrtime.bigint();
  for (const batch of generateTraffic({ conversationLength, totalCalls, batchSize: BATCH, concurrentConversations: Math.max(50, Math.ceil(BATCH / 2)) })) {
    const result = await ingestCallBatch(db, batch);
    calls += result.accepted;
    interruptions += result.interruptions;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await db.$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
  await db.$disconnect();
  const bytes = fs.statSync(file).size;
  return { scenario, calls, seconds, callsPerSecond: calls / seconds, bytesPerCall: bytes / calls, interruptions };
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `${os.cpus().length} cores (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

async function main() {
  const total = arg("calls", 200_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-"));
  console.log(`Machine: ${machine()}`);
  console.log(`Ingesting ${total} calls in batches of ${BATCH} (half in 10-call, half in 200-call conversations)…`);
  const only = process.argv.includes("--only") ? Number(process.argv[process.argv.indexOf("--only") + 1]) : null;
  const results: Result[] = [];
  for (const length of [10, 200]) if (only === null || only === length) results.push(await run(`${length}-call conversations`, length, total / 2, dir));
  console.log("\n| scenario | calls | seconds | calls/s | bytes/call | interruptions |\n|---|---|---|---|---|---|");
  for (const r of results) {
    console.log(`| ${r.scenario} | ${r.calls} | ${r.seconds.toFixed(1)} | ${Math.round(r.callsPerSecond)} | ${Math.round(r.bytesPerCall)} | ${r.interruptions} |`);
  }
  if (results.length === 2) {
    const ratio = results[1].bytesPerCall / results[0].bytesPerCall;
    console.log(`\nbytes/call ratio 200-call : 10-call = ${ratio.toFixed(2)} (target ≤ 2)`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
