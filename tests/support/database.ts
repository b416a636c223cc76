// A fresh, migrated database per test file: a SQLite file by default, or — with
// TEST_DATABASE_URL=postgresql://… — a PostgreSQL database. Either is a copy of a template that
// tests/support/globalSetup.ts migrated once for the run: a migration starts Prisma's schema
// engine, ~2 s of CPU on SQLite (65 of them took a quarter of the suite's CPU) and ~10 s on PostgreSQL.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrate } from "@/lib/db/migrate";
import { createDatabase, dropDatabase, withDatabase } from "@/lib/db/postgresAdmin";

export type TestDatabase = { url: string; provider: "sqlite" | "postgresql"; file: string | null; drop: () => Promise<void> };

export const TEMPLATE_DATABASE = "sightdesk_test_template";

/** The environment variable naming the run's migrated SQLite file (set by the global setup, read by the test workers). */
export const SQLITE_TEMPLATE_ENV = "SIGHTDESK_TEST_SQLITE_TEMPLATE";

export const testPostgresUrl = (): string | null => process.env.TEST_DATABASE_URL || null;

/** A database nothing has created yet (a SQLite file in a folder of its own, or a PostgreSQL database name). */
export function newTestDatabase(label: string): TestDatabase {
  const server = testPostgresUrl();
  if (server) {
    const name = `sightdesk_${label.replace(/\W/g, "_").slice(0, 20)}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`.toLowerCase();
    const url = withDatabase(server, name);
    return { url, provider: "postgresql", file: null, drop: () => dropDatabase(url) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sightdesk-${label}-`));
  const file = path.join(dir, "sightdesk.db");
  return { url: `file:${file}`, provider: "sqlite", file, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const database = newTestDatabase(label);
  const template = process.env[SQLITE_TEMPLATE_ENV];
  if (database.provider === "postgresql") await createDatabase(database.url, TEMPLATE_DATABASE);
  else if (template) fs.copyFileSync(template, database.file!);
  else await migrate(database.url); // outside vitest (benchmarks)
  return database;
}
