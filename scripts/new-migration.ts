// `npm run db:migration -- <name>`: writes the migration for the change to prisma/schema.prisma
// since the last commit, once per provider (prisma/migrations and prisma/migrations-pg).
// Prisma's diff needs a PostgreSQL server for the PostgreSQL side (it connects, changes nothing):
// POSTGRES_URL, or the private cluster of scripts/postgres-cluster.sh. On PostgreSQL an index on
// a table already in use gets a migration of its own, built CONCURRENTLY (lib/db/migrationSql.ts).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { splitOutIndexes } from "../lib/db/migrationSql";
import { derivePostgresSchema, PRISMA_FILES } from "../lib/db/schemaFiles";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migration -- <name in snake_case>");
  process.exit(2);
}
// Now, or just after the newest migration of either folder: deploy applies them in name order.
const newest = Object.values(PRISMA_FILES)
  .flatMap((f) => (fs.existsSync(f.migrations) ? fs.readdirSync(f.migrations) : []))
  .map((name) => name.slice(0, 14))
  .filter((s) => /^\d{14}$/.test(s))
  .sort()
  .at(-1);
const now = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const stamp = newest && newest >= now ? String(BigInt(newest) + 1n) : now;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-migration-"));
const current = fs.readFileSync(PRISMA_FILES.sqlite.schema, "utf8");
const previous = execFileSync("git", ["show", `HEAD:${PRISMA_FILES.sqlite.schema}`], { encoding: "utf8" });
if (previous === current) {
  console.error("prisma/schema.prisma has no change since the last commit");
  process.exit(1);
}

function diff(url: string, from: string, to: string): string {
  const files = [from, to].map((text, i) => {
    const file = path.join(tmp, `${i}-${Math.random().toString(36).slice(2)}.prisma`);
    fs.writeFileSync(file, text);
    return file;
  });
  const run = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "migrate", "diff", "--from-schema-datamodel", files[0], "--to-schema-datamodel", files[1], "--script"], {
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1" },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(run.stderr || run.stdout);
  return run.stdout;
}

const postgresUrl = process.env.POSTGRES_URL || execFileSync("scripts/postgres-cluster.sh", ["start"], { encoding: "utf8" }).trim();
const postgres = splitOutIndexes(diff(postgresUrl, derivePostgresSchema(previous), derivePostgresSchema(current)));
const migrations: { provider: keyof typeof PRISMA_FILES; name: string; sql: string }[] = [
  { provider: "sqlite", name: `${stamp}_${name}`, sql: diff(`file:${path.join(tmp, "diff.db")}`, previous, current) },
  ...(postgres.rest ? [{ provider: "postgresql" as const, name: `${stamp}_${name}`, sql: postgres.rest }] : []),
  ...postgres.indexes.map((sql, i) => ({ provider: "postgresql" as const, name: `${BigInt(stamp) + BigInt(i + 1)}_${name}_index_${i + 1}`, sql: `-- CreateIndex, CONCURRENTLY: writes go on while it builds (alone in its migration, lib/db/migrationSql.ts)\n${sql}\n` })),
];
for (const m of migrations) {
  const dir = path.join(PRISMA_FILES[m.provider].migrations, m.name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "migration.sql"), m.sql);
  console.log(`wrote ${dir}/migration.sql`);
}
fs.rmSync(tmp, { recursive: true, force: true });
