// The size cap in the running server (SPEC §7): with a small max_db_size_mb and a one-second
// check interval, the server's sweeper brings the database back under the cap while ingest
// goes on, oldest data first. On PostgreSQL it never rewrites a table (no VACUUM FULL: every
// table, index and TOAST table keeps its file) — the space freed by plain VACUUM counts as free.
import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withClient } from "@/lib/db/postgresAdmin";
import { occupiedBytes, POSTGRES_TABLES_SQL, toTableSpace } from "@/lib/sweeps/postgresSpace";
import { startServer, type TestServer } from "./support/server";

const CAP_MB = 3;
const CAP = CAP_MB * 1024 * 1024;
const MS = 1_000_000n;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ SIGHTDESK_MAX_DB_SIZE_MB: String(CAP_MB), SIGHTDESK_CHECK_INTERVAL_SECS: "1" });
});
afterAll(async () => {
  await server?.stop();
});

const postgres = () => server.dbFile === null;

/** What the sweeper compares with the cap: the SQLite file and its WAL, or what the PostgreSQL tables occupy. */
async function size(): Promise<number> {
  const file = server.dbFile;
  if (file) return [file, `${file}-wal`].reduce((sum, f) => sum + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  return withClient(server.databaseUrl, async (c) => (await c.query(POSTGRES_TABLES_SQL)).rows.map(toTableSpace).reduce((sum, t) => sum + occupiedBytes(t), 0));
}

/** The file node of every table, index and TOAST table (PostgreSQL): a rewrite gives a new one. */
const fileNodes = () =>
  withClient(server.databaseUrl, async (c) =>
    (await c.query(`SELECT c.relname AS name, c.relfilenode AS node FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'i')
      UNION ALL SELECT 'toast of ' || c.relname, t.relfilenode FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid WHERE c.relnamespace = current_schema()::regnamespace`)).rows,
  );

const base = BigInt(Date.now()) * MS - 3_600_000n * MS; // an hour ago: far inside retention
const text = () => crypto.randomBytes(3000).toString("base64"); // ~4 KB that no compression shrinks

/** Batch `b` of 50 calls, one minute of simulated time after the previous batch. */
function batch(b: number) {
  return Array.from({ length: 50 }, (_, i) => {
    const start = base + BigInt(b * 50 + i) * 1_000n * MS;
    return {
      call_id: `cap-${b}-${i}`, session_id: `cap-session-${b}`, conversation_id: `cap-conv-${b}-${i}`, agent_name: "cap-bot",
      provider: "openai", model: "m", start_ns: String(start), end_ns: String(start + 500n * MS), status_code: 200, finish_reasons: ["stop"],
      input_messages: [{ role: "user", parts: [{ type: "text", content: text() }] }],
      output_messages: [{ role: "assistant", parts: [{ type: "text", content: text() }] }],
    };
  });
}

describe("size cap", () => {
  it("keeps the database under max_db_size_mb while ingest goes on, oldest first, without rewriting a table", async () => {
    const nodesBefore = postgres() ? await fileNodes() : null;
    // ~8 MB in 40 requests, more than twice the cap, while the sweeper runs every second
    const BATCHES = 40;
    for (let b = 0; b < BATCHES; b++) {
      const res = await server.api("/api/ingest/calls", { method: "POST", body: JSON.stringify(batch(b)) });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    // the sweeper catches up with the last requests (a liveness bound, not a speed check); the
    // size that ended the wait is the one asserted: on PostgreSQL it is an estimate from the
    // statistics, which a later ANALYZE may move a little either way (the sweeper trims again then)
    const deadline = Date.now() + 60_000;
    let now = await size();
    while (now > CAP && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      now = await size();
    }
    expect(now, server.log().slice(-3000)).toBeLessThanOrEqual(CAP);
    expect(server.log()).toMatch(/\[sweeps\] size cap: \d+ → \d+ bytes/);

    // the newest calls are there, the oldest were trimmed
    const tablesNow = postgres() ? await withClient(server.databaseUrl, async (c) => (await c.query(POSTGRES_TABLES_SQL)).rows.map(toTableSpace).map((t) => `${t.name} total=${t.total} heap=${t.heap} tuples=${t.tuples} width=${t.width} occ=${Math.round(occupiedBytes(t))}`).join("\n")) : "";
    expect((await server.api(`/api/calls/cap-${BATCHES - 1}-49`)).status, server.log().slice(-1000) + tablesNow).toBe(200);
    expect((await server.api("/api/calls/cap-0-0")).status).toBe(404);

    if (postgres()) {
      expect(await fileNodes()).toEqual(nodesBefore);
      const vacuums = await withClient(server.databaseUrl, (c) => c.query(`SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'Message'`));
      expect(Number(vacuums.rows[0].vacuum_count)).toBeGreaterThan(0);
    }
  }, 120_000);
});
