// What a sweep costs when it has nothing to delete (the common case: every minute, on a store that
// is within its retention and cap): generated traffic into a fresh SQLite database, then runSweep
// timed, median of 5. `--without-sweep-indexes` drops the indexes retention walks (migration
// 20261204030827_sweep_indexes) first, to compare with the store before them.
// Usage: npm run bench:sweep [-- --calls 200000 --without-sweep-indexes]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { configDefaults } from "../lib/config/load";
import { createDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { ingestCallBatch } from "../lib/api/ingest";
import { runSweep } from "../lib/sweeps/sweep";
import { generateTraffic } from "./traffic";

const flag = (name: string) => process.argv.indexOf(`--${name}`);
const CALLS = flag("calls") >= 0 ? Number(process.argv[flag("calls") + 1]) : 200_000;
const WITHOUT_INDEXES = flag("without-sweep-indexes") >= 0;
const SWEEP_INDEXES = ["Call_startNs_idx", "Call_systemBlobId_idx", "Call_toolsBlobId_idx", "ToolCall_atNs_idx", "Turn_lastSeenNs_idx", "Conversation_lastSeenNs_idx"];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-sweep-"));
  const url = `file:${path.join(dir, "sweep.db")}`;
  await migrate(url);
  const db = createDb(url);
  try {
    let newestNs = 0n;
    for (const batch of generateTraffic({ conversationLength: 20, totalCalls: CALLS, batchSize: 500, concurrentConversations: 250 })) {
      await ingestCallBatch(db, batch);
      for (const c of batch as { start_ns: string }[]) if (BigInt(c.start_ns) > newestNs) newestNs = BigInt(c.start_ns);
    }
    if (WITHOUT_INDEXES) for (const index of SWEEP_INDEXES) await db.$executeRawUnsafe(`DROP INDEX "${index}"`);
    await db.$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
    const defaults = configDefaults();
    // retention far back and a cap far above the store: the sweep looks and finds nothing to delete
    const cfg = { detection: defaults.detection, retentionDays: 3650, activityRetentionDays: 3650, maxDbSizeMb: 1_000_000, staleTurnMinutes: 30, checkIntervalSecs: defaults.checkIntervalSecs };
    const times: number[] = [];
    for (let run = 0; run < 6; run++) {
      const started = performance.now();
      const result = await runSweep(db, cfg, newestNs + 1n);
      if (Object.values(result.retention).some((n) => n > 0)) throw new Error("the sweep deleted something: the bench measures a sweep with nothing to do");
      if (run > 0) times.push(performance.now() - started); // the first warms the page cache
    }
    times.sort((a, b) => a - b);
    const calls = Number((await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT COUNT(*) AS n FROM "Call"`))[0].n);
    console.log(`${calls} calls (SQLite), ${WITHOUT_INDEXES ? "without" : "with"} the sweep indexes: a sweep with nothing to delete takes ${times[2].toFixed(1)} ms (median of 5; min ${times[0].toFixed(1)}, max ${times[4].toFixed(1)})`);
  } finally {
    await db.$disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
