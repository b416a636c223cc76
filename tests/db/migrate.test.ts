// Migrations at start (issue 14): with nothing pending, migrate() reads the migration table and
// leaves Prisma's schema engine alone; what counts as pending; a changed migration is reported.
import { describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import pg from "pg";
import { committedMigrations, deployFinished, migrate, pendingMigrations, waitForIndexBuild, type AppliedMigration } from "@/lib/db/migrate";
import { useTestDb } from "../support/testDb";
import { createTestDatabase, newTestDatabase, testPostgresUrl } from "../support/database";
import { createDatabase } from "@/lib/db/postgresAdmin";

const applied = (name: string, checksum: string, over: Partial<AppliedMigration> = {}): AppliedMigration => ({
  migration_name: name, checksum, finished_at: "2026-12-01", rolled_back_at: null, ...over,
});

describe("pendingMigrations", () => {
  const committed = [
    { name: "1_init", checksum: "a" },
    { name: "2_more", checksum: "b" },
    { name: "3_last", checksum: "c" },
  ];

  it("are the committed migrations without a finished, not rolled back row", () => {
    expect(pendingMigrations(committed, [])).toEqual(committed);
    expect(pendingMigrations(committed, [applied("1_init", "a"), applied("2_more", "b"), applied("3_last", "c")])).toEqual([]);
    const rows = [applied("1_init", "a"), applied("2_more", "b", { finished_at: null }), applied("3_last", "c", { rolled_back_at: "2026-12-01" })];
    expect(pendingMigrations(committed, rows).map((m) => m.name)).toEqual(["2_more", "3_last"]);
    // a migration the database has and this checkout does not (a newer version ran) is not pending
    expect(pendingMigrations(committed.slice(0, 1), [applied("1_init", "a"), applied("9_newer", "z")])).toEqual([]);
  });

  it("report an applied migration whose file changed since, without applying it again", () => {
    const warnings: string[] = [];
    expect(pendingMigrations(committed.slice(0, 1), [applied("1_init", "changed")], (m) => warnings.push(m))).toEqual([]);
    expect(warnings).toEqual(["[sightdesk] warning: migration 1_init was changed after it was applied"]);
  });
});

describe("deployFinished", () => {
  it("is the CLI's closing line, plain or coloured, whole and on a line of its own", () => {
    const listing = "11 migrations found in prisma/migrations\n\nApplying migration `20261202080000_session_open_counts`\n";
    expect(deployFinished(listing)).toBe(false);
    expect(deployFinished(`${listing}\nAll migrations have been successfully applied.\n`)).toBe(true);
    expect(deployFinished(`${listing}\n\x1b[32mAll migrations have been successfully applied.\x1b[39m\n`)).toBe(true);
    expect(deployFinished(`${listing}\nAll migrations have been successfully appl`)).toBe(false); // the rest of the line is still on its way
    expect(deployFinished("No pending migrations to apply.\n")).toBe(false);
  });
});

describe("migrate", () => {
  const db = useTestDb("migrate");

  it("finds nothing to do on a migrated database, whose table lists every committed migration with its checksum", async () => {
    const committed = committedMigrations(process.env.TEST_DATABASE_URL || "file:x.db");
    expect(committed.length).toBeGreaterThan(1);
    const rows = await db().$queryRawUnsafe<AppliedMigration[]>("SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations");
    expect(pendingMigrations(committed, rows, () => expect.fail("no migration changed"))).toEqual([]);
  });

  it("reports nothing applied on a database migrated before", async () => {
    const fresh = await createTestDatabase("migrate-again");
    try {
      expect(await migrate(fresh.url)).toEqual({ applied: [] }); // createTestDatabase migrated it
    } finally {
      await fresh.drop();
    }
  });

  it("applies every committed migration to a new database through Prisma's engine, and fails with the engine's words when it refuses", { timeout: 60_000 }, async () => {
    const fresh = newTestDatabase("migrate_new");
    try {
      const committed = committedMigrations(fresh.url).map((m) => m.name);
      expect(await migrate(fresh.url)).toEqual({ applied: committed });
      const db = createDb(fresh.url);
      try {
        const rows = await db.$queryRawUnsafe<AppliedMigration[]>("SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations");
        expect(rows.filter((r) => r.finished_at !== null).map((r) => r.migration_name).sort()).toEqual(committed);
        // a migration that failed half-way: the engine will not go on until someone resolves it
        // (one that is not a lone index build, which migrate() undoes and runs again: below)
        const failed = committed.filter((name) => !name.includes("_index")).at(-1);
        await db.$executeRawUnsafe(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = '${failed}'`);
      } finally {
        await db.$disconnect();
      }
      await expect(migrate(fresh.url)).rejects.toThrow(/Database migration failed:[\s\S]*P3009/);
    } finally {
      await fresh.drop();
    }
  });
});

describe.runIf(testPostgresUrl())("processes starting together on a new PostgreSQL database", () => {
  // Its indexes are built CONCURRENTLY, which waits for every older snapshot: a process waiting
  // for the migration lock inside pg_advisory_lock holds one, and the three would wait for ever.
  it("migrate it once, one after the other, none waiting for ever", { timeout: 90_000 }, async () => {
    const fresh = newTestDatabase("migrate_together");
    try {
      const committed = committedMigrations(fresh.url).map((m) => m.name);
      const results = await Promise.all([migrate(fresh.url), migrate(fresh.url), migrate(fresh.url)]);
      expect(results.map((r) => r.applied).sort((a, b) => b.length - a.length)).toEqual([committed, [], []]);
    } finally {
      await fresh.drop();
    }
  });
});

describe.runIf(testPostgresUrl())("an index build that failed (PostgreSQL)", () => {
  const MIGRATION = "20261204033304_turn_stale_check_index";
  const INDEX = "Turn_endReason_staleCheckedNs_lastSeenNs_idx";

  it("is undone and run again: the invalid index dropped, the migration rolled back, the index built anew", { timeout: 60_000 }, async () => {
    const fresh = await createTestDatabase("migrate-failed-index");
    const db = createDb(fresh.url);
    try {
      const indexState = async () =>
        (await db.$queryRawUnsafe<{ valid: boolean; oid: number }[]>(`SELECT i.indisvalid AS valid, c.oid::int AS oid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = '${INDEX}'`))[0];
      const row = async () => (await db.$queryRawUnsafe<AppliedMigration[]>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations WHERE migration_name = '${MIGRATION}' ORDER BY started_at`));
      const before = await indexState();
      // as a build that failed leaves it: the index INVALID, the migration started and not finished
      await db.$executeRawUnsafe(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '"${INDEX}"'::regclass`);
      await db.$executeRawUnsafe(`UPDATE _prisma_migrations SET finished_at = NULL, logs = 'ERROR: canceling statement due to user request' WHERE migration_name = '${MIGRATION}'`);
      expect(await migrate(fresh.url)).toEqual({ applied: [MIGRATION] });
      const after = await indexState();
      expect(after.valid).toBe(true);
      expect(after.oid).not.toBe(before.oid); // built anew
      expect((await row()).map((r) => [r.finished_at !== null, r.rolled_back_at !== null])).toEqual([[false, true], [true, false]]);

      // built, but the engine died before recording it: recorded, not built again
      await db.$executeRawUnsafe(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = '${MIGRATION}' AND rolled_back_at IS NULL`);
      expect(await migrate(fresh.url)).toEqual({ applied: [] });
      expect((await indexState()).oid).toBe(after.oid);
      expect(pendingMigrations(committedMigrations(fresh.url), await db.$queryRawUnsafe<AppliedMigration[]>("SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations"))).toEqual([]);
    } finally {
      await db.$disconnect();
      await fresh.drop();
    }
  });
});

describe.runIf(testPostgresUrl())("an index another backend is still building (PostgreSQL)", () => {
  it("is waited for, and the wait is reported with the backend's pid until the build ends", { timeout: 60_000 }, async () => {
    const fresh = newTestDatabase("migrate_wait_build");
    await createDatabase(fresh.url);
    const [writer, builder, waiter] = [0, 1, 2].map(() => new pg.Client({ connectionString: fresh.url }));
    try {
      for (const c of [writer, builder, waiter]) await c.connect();
      await writer.query(`CREATE TABLE t (x int)`);
      // an open writer keeps CREATE INDEX CONCURRENTLY in "waiting for writers before build"
      await writer.query("BEGIN; LOCK TABLE t IN ROW EXCLUSIVE MODE");
      const builderPid = (await builder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const build = builder.query(`CREATE INDEX CONCURRENTLY t_x_idx ON t (x)`);
      const reports: string[] = [];
      // the build shows in the progress view once it has created its (invalid) index
      while (!(await waiter.query("SELECT 1 FROM pg_class WHERE relname = 't_x_idx'")).rowCount) await new Promise((r) => setTimeout(r, 20));
      let done = false;
      const waited = waitForIndexBuild(waiter, "t_x_idx", (m) => reports.push(m), { pollMs: 20, reportMs: 100 }).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 400));
      expect(done).toBe(false);
      expect(reports.length).toBeGreaterThanOrEqual(2); // at once, then again
      expect(reports[0]).toContain(`backend ${builderPid}`);
      expect(reports[0]).toContain('"t_x_idx"');
      await writer.query("COMMIT");
      await build;
      await waited;
      expect((await waiter.query("SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 't_x_idx'")).rows[0].valid).toBe(true);
      // nothing being built: no wait, no report
      const after = reports.length;
      await waitForIndexBuild(waiter, "t_x_idx", (m) => reports.push(m));
      expect(reports.length).toBe(after);
    } finally {
      for (const c of [writer, builder, waiter]) await c.end().catch(() => undefined);
      await fresh.drop();
    }
  });
});
