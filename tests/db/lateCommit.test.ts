// Interruptions of an ingest transaction that waited after detecting them (a row another
// process's transaction holds) are stamped again before it commits: the alert worker finds new
// interruptions by createdAtNs, 10 s behind the newest it has seen, and would never see rows
// committed with an older stamp. PostgreSQL only: a SQLite transaction holds the write lock from
// its start and never waits inside.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { nowNs } from "@/lib/domain/time";
import { ingestCalls } from "@/lib/ingest/storeCalls";
import { ingestEvents } from "@/lib/ingest/storeEvents";
import { callSchema } from "@/lib/ingest/schema";
import { configDefaults } from "@/lib/config/load";
import { createTestDatabase, testPostgresUrl, type TestDatabase } from "../support/database";

const detection = configDefaults().detection;
const T = BigInt(Date.now() - 60_000) * 1_000_000n;
let database: TestDatabase | undefined;
let db: Db | undefined;
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const failing = (id: string, session: string) =>
  callSchema.parse({
    call_id: id, session_id: session, agent_name: "late", pid: 7, start_ns: String(T), end_ns: String(T + 1_000_000n),
    status_code: 500, error: "upstream exploded", input_messages: [{ role: "user", parts: [{ type: "text", content: "hi" }] }],
  });

describe("interruptions of a transaction that waited before committing", () => {
  it.skipIf(!testPostgresUrl())("are stamped when it commits, not when they were detected", async () => {
    database = await createTestDatabase("late-commit");
    db = createDb(database.url);
    await ingestCalls(db, [failing("first", "s-first")], detection); // the agent's arrival row exists
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    let releasedAt = 0n;
    try {
      // another transaction holds the row every batch of this agent updates last
      await holder.query(`BEGIN; SELECT 1 FROM "IngestSource" WHERE "source" = 'api' AND "agentName" = 'late' FOR UPDATE`);
      const calls = ingestCalls(db, [failing("second", "s-second")], detection);
      const events = ingestEvents(db, [{ kind: "process_exit", session_id: "s-exit", agent_name: "late", pid: 8, exit_code: 1, at_ns: T }], detection);
      await new Promise((r) => setTimeout(r, 1_500));
      releasedAt = nowNs();
      await holder.query("COMMIT");
      expect((await calls).interruptions).toBe(1);
      expect((await events).interruptions).toBe(1);
    } finally {
      await holder.end();
    }
    const rows = await db.interruption.findMany({ where: { sessionId: { in: ["s-second", "s-exit"] } }, select: { id: true, type: true, createdAtNs: true } });
    expect(rows.map((r) => r.type).sort()).toEqual(["agent_crash", "llm_error"]);
    // before, both kept the stamp of their detection, 1.5 s before they could commit
    for (const r of rows) expect([r.type, r.createdAtNs >= releasedAt]).toEqual([r.type, true]);
  }, 30_000);
});
