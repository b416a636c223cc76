// `npm run bench:migrate` (DATABASE_URL=postgresql://… for PostgreSQL): what a start with
// nothing to migrate costs. A fresh database (a new PostgreSQL database on the URL's server, or
// a temporary SQLite file) is migrated once, then, with nothing pending:
//   - before issue 14: `prisma migrate deploy` (the schema engine), which every start used to run;
//   - now: `migrate()` in-process (reads the migration table, skips the engine);
//   - `npm run db:migrate` as a whole (tsx start-up, configuration, data directory, migrate()).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrate } from "../lib/db/migrate";
import { dropDatabase, withDatabase } from "../lib/db/postgresAdmin";
import { providerOf, redactedUrl } from "../lib/db/url";

const RUNS = Number(process.env.BENCH_RUNS) || 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

function timedSpawn(args: string[], env: Record<string, string>): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { env: { ...process.env, ...env, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" }, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`${args.join(" ")} failed:\n${run.stdout}\n${run.stderr}`);
  return performance.now() - started;
}

async function main() {
  const base = process.env.DATABASE_URL;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-migrate-"));
  const url = base && providerOf(base) === "postgresql" ? withDatabase(base, `sightdesk_bench_migrate_${process.pid}`) : `file:${path.join(tmp, "sightdesk.db")}`;
  try {
    console.log(`database: ${redactedUrl(url)}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    let started = performance.now();
    const { applied } = await migrate(url);
    console.log(`fresh database, ${applied.length} migrations applied: ${fmt(performance.now() - started)}`);

    const engine: number[] = [];
    for (let i = 0; i < RUNS; i++) engine.push(timedSpawn(["node_modules/prisma/build/index.js", "migrate", "deploy"], { DATABASE_URL: url }));
    const inProcess: number[] = [];
    for (let i = 0; i < RUNS * 3; i++) {
      started = performance.now();
      const again = await migrate(url);
      inProcess.push(performance.now() - started);
      if (again.applied.length) throw new Error("expected nothing to migrate");
    }
    const script: number[] = [];
    for (let i = 0; i < RUNS; i++) script.push(timedSpawn(["node_modules/tsx/dist/cli.mjs", "scripts/migrate.ts"], { DATABASE_URL: url, SIGHTDESK_DATA_DIR: tmp }));

    console.log(`nothing to migrate (median of ${RUNS}, ${RUNS * 3} in-process):`);
    console.log(`  before: prisma migrate deploy        ${fmt(median(engine))}  (${engine.map(fmt).join(", ")})`);
    console.log(`  now:    migrate() in-process         ${fmt(median(inProcess))}`);
    console.log(`  now:    npm run db:migrate (whole)   ${fmt(median(script))}  (${script.map(fmt).join(", ")})`);
    console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  } finally {
    if (providerOf(url) === "postgresql") await dropDatabase(url);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
