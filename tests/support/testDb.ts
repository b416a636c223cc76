// A test database per suite, as vitest hooks (kept apart from database.ts, which benchmarks
// and the global setup also load outside vitest).
import { afterAll, beforeAll } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createTestDatabase, type TestDatabase } from "./database";

/**
 * A fresh database and its client for the enclosing suite (or file): created before its tests,
 * disconnected and dropped after them. Call the returned function inside a test for the client.
 */
export function useTestDb(label: string): () => Db {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(label);
    db = createDb(database.url);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });
  return () => {
    if (!db) throw new Error("useTestDb: the database is made in beforeAll; use it inside a test");
    return db;
  };
}
