// The migration that made the session token totals and the per-source call counts 64-bit, on a
// database holding data from the migrations before it (SQLite redefines the tables it changes:
// their rows must come through). SQLite, or PostgreSQL with TEST_DATABASE_URL.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PRISMA_FILES } from "@/lib/db/schemaFiles";
import { createDatabase, dropDatabase, withDatabase } from "@/lib/db/postgresAdmin";
import { testPostgresUrl } from "../support/database";

const MIGRATION = "_counters_64_bit_activity_age";
const BIG = 3n * 2n ** 31n; // past the 32-bit range

/** A database at the migration before MIGRATION: run(sql), then read rows. */
type Target = { run: (sql: string) => Promise<void>; rows: (sql: string) => Promise<Record<string, unknown>[]>; close: () => Promise<void> };

async function sqliteTarget(): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-migration-"));
  const db = new Database(path.join(dir, "t.db"));
  db.defaultSafeIntegers(true);
  return {
    run: async (sql) => void db.exec(sql),
    rows: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
    close: async () => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresTarget(server: string): Promise<Target> {
  const url = withDatabase(server, `sightdesk_migration_${process.pid}`);
  await dropDatabase(url);
  await createDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    run: async (sql) => void (await client.query(sql)),
    rows: async (sql) => (await client.query(sql)).rows,
    close: async () => {
      await client.end();
      await dropDatabase(url);
    },
  };
}

const server = testPostgresUrl();
const folder = PRISMA_FILES[server ? "postgresql" : "sqlite"].migrations;
const migrations = fs.readdirSync(folder).filter((d) => /^\d{14}_/.test(d)).sort();
const sqlOf = (name: string) => fs.readFileSync(path.join(folder, name, "migration.sql"), "utf8");

let target: Target | null = null;
afterAll(async () => target?.close());

describe(`migration${MIGRATION}`, () => {
  it("keeps the sessions' and sources' rows and lets their counters pass 2^31", async () => {
    const at = migrations.findIndex((m) => m.endsWith(MIGRATION));
    expect(at).toBeGreaterThan(0);
    target = server ? await postgresTarget(server) : await sqliteTarget();
    for (const m of migrations.slice(0, at)) await target.run(sqlOf(m));
    await target.run(`INSERT INTO "Session" ("id", "agentName", "pid", "firstSeenNs", "lastSeenNs", "callCount", "inputTokens", "outputTokens", "lastModel")
      VALUES ('s-1', 'bot', 42, 1800000000000000000, 1800000000000000001, 7, 2147483647, 12345, 'gpt-4o')`);
    await target.run(`INSERT INTO "IngestSource" ("source", "agentName", "lastSeenNs", "calls") VALUES ('api', 'bot', 1800000000000000002, 2147483000)`);

    await target.run(sqlOf(migrations[at]));

    const [session] = await target.rows(`SELECT "id", "agentName", "pid", "firstSeenNs", "lastSeenNs", "callCount", "inputTokens", "outputTokens", "lastModel" FROM "Session"`);
    expect(Object.fromEntries(Object.entries(session).map(([k, v]) => [k, String(v)]))).toEqual({
      id: "s-1", agentName: "bot", pid: "42", firstSeenNs: "1800000000000000000", lastSeenNs: "1800000000000000001", callCount: "7", inputTokens: "2147483647", outputTokens: "12345", lastModel: "gpt-4o",
    });
    const [source] = await target.rows(`SELECT "calls", "lastSeenNs" FROM "IngestSource"`);
    expect([String(source.calls), String(source.lastSeenNs)]).toEqual(["2147483000", "1800000000000000002"]);
    // the indexes of the redefined table are back
    const indexes = server
      ? await target.rows(`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'Session'`)
      : await target.rows(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Session' AND name NOT LIKE 'sqlite_%'`);
    expect(indexes.map((i) => i.name).sort()).toEqual(expect.arrayContaining(["Session_agentName_lastSeenNs_idx", "Session_agentName_pid_host_idx", "Session_lastSeenNs_idx"]));

    // past 2^31 now, on both kinds of database
    await target.run(`UPDATE "Session" SET "inputTokens" = "inputTokens" + ${BIG}, "outputTokens" = ${BIG}`);
    await target.run(`UPDATE "IngestSource" SET "calls" = "calls" + ${BIG}`);
    const [after] = await target.rows(`SELECT "inputTokens", "outputTokens" FROM "Session"`);
    expect([String(after.inputTokens), String(after.outputTokens)]).toEqual([String(2147483647n + BIG), String(BIG)]);
    expect(String((await target.rows(`SELECT "calls" FROM "IngestSource"`))[0].calls)).toBe(String(2147483000n + BIG));
  });
});
