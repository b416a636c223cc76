// SessionOpenCount stays exactly the unresolved interruptions per session through every write
// path (ingest with detection, triage one by one and in bulk, retention deletes, an import,
// hand-written SQL), and comes back by itself when a migration dropped its triggers.
import { describe, expect, it } from "vitest";
import { ingestCallBatch } from "@/lib/api/ingest";
import { insertRows } from "@/lib/db/multiRow";
import { ensureOpenCounts, foldOpenCounts, OPEN_COUNT_TRIGGERS } from "@/lib/db/openCounts";
import { dialectOf, readSql, transaction } from "@/lib/db/sql";
import { deleteOlderThan } from "@/lib/sweeps/sweep";
import { applyToMany, applyToOne } from "@/lib/triage/lifecycle";
import { useTestDb } from "../support/testDb";

const db = useTestDb("opencounts");

type Counts = Record<string, number[]>;

const asCounts = (rows: Array<Record<string, unknown>>): Counts =>
  Object.fromEntries(rows.map((r) => [String(r.sessionId), ["total", "critical", "high", "medium", "low"].map((c) => Number(r[c]))]));

async function stored(): Promise<Counts> {
  await foldOpenCounts(db()); // what its readers do first
  return asCounts(await readSql(db()).all(`SELECT * FROM "SessionOpenCount"`));
}

/** Compares the table with a recount of Interruption (written here, independently of the triggers). */
async function expectExact(): Promise<Counts> {
  const sql = readSql(db());
  const now = await stored();
  const open = `"status" IN ('open', 'acknowledged')`;
  const key = `COALESCE("sessionId", '__unassigned__')`;
  const recount = asCounts(
    await sql.all(
      `SELECT ${key} AS "sessionId", COUNT(*) AS "total",
         SUM(CASE WHEN "severity" = 'critical' THEN 1 ELSE 0 END) AS "critical", SUM(CASE WHEN "severity" = 'high' THEN 1 ELSE 0 END) AS "high",
         SUM(CASE WHEN "severity" = 'medium' THEN 1 ELSE 0 END) AS "medium", SUM(CASE WHEN "severity" = 'low' THEN 1 ELSE 0 END) AS "low"
       FROM "Interruption" WHERE ${open} GROUP BY ${key}`,
    ),
  );
  expect(now).toEqual(recount);
  // the cells, the entry written from them, and bounds that hold every unresolved interruption
  const cells = await sql.all(`SELECT ${key} AS "k", "type", "severity", COUNT(*) AS "n", MIN("occurredAtNs") AS "first", MAX("occurredAtNs") AS "last" FROM "Interruption" WHERE ${open} GROUP BY ${key}, "type", "severity"`);
  const storedCells = await sql.all(`SELECT "sessionId" AS "k", "type", "severity", "count" AS "n" FROM "SessionOpenCell"`);
  const cellKey = (c: Record<string, unknown>) => `${c.k}|${c.type}|${c.severity}|${Number(c.n)}`;
  expect(storedCells.map(cellKey).sort()).toEqual(cells.map(cellKey).sort());
  const rows = new Map((await sql.all(`SELECT * FROM "SessionOpenCount"`)).map((r) => [String(r.sessionId), r]));
  for (const [k, r] of rows) {
    const mine = cells.filter((c) => c.k === k).sort((a, b) => Buffer.compare(Buffer.from(`${a.type}\u0000${a.severity}`), Buffer.from(`${b.type}\u0000${b.severity}`)));
    const types = mine.map((c) => ({ interruption_type: c.type, severity: c.severity, count: Number(c.n) }));
    const bySeverity = { critical: Number(r.critical), high: Number(r.high), medium: Number(r.medium), low: Number(r.low) };
    expect(String(r.entry)).toBe(JSON.stringify({ session_id: k, total: Number(r.total), by_severity: bySeverity, types }));
    expect(BigInt(r.firstNs as bigint)).toBeLessThanOrEqual(mine.reduce((m, c) => (BigInt(c.first as bigint) < m ? BigInt(c.first as bigint) : m), BigInt(r.lastNs as bigint)));
    expect(BigInt(r.lastNs as bigint)).toBeGreaterThanOrEqual(mine.reduce((m, c) => (BigInt(c.last as bigint) > m ? BigInt(c.last as bigint) : m), 0n));
  }
  return now;
}

const T0 = 1_800_000_000_000_000_000n;

function row(id: string, sessionId: string | null, severity: string, status = "open", at = T0, type = "llm_error") {
  return { id, sessionId, type, severity, status, occurredAtNs: at, lastSeenNs: at, occurrences: 1, detail: "{}", fingerprint: "fp", createdAtNs: at };
}

describe("SessionOpenCount", () => {
  it("counts inserted interruptions per session and severity, unresolved only, none-session as __unassigned__", async () => {
    await transaction(db(), (sql) =>
      insertRows(
        sql,
        "Interruption",
        [
          row("a1", "s-a", "critical", "open", T0 + 5n),
          row("a2", "s-a", "high", "acknowledged", T0, "rate_limit"),
          row("a3", "s-a", "medium", "resolved"),
          row("b1", "s-b", "warning", "open", T0, 'quote"type'),
          row("n1", null, "low"),
          row("n2", null, "low", "open", T0 + 9n),
        ],
        { key: ["id"], update: "nothing" },
      ),
    );
    expect(await expectExact()).toEqual({ "s-a": [2, 1, 1, 0, 0], "s-b": [1, 0, 0, 0, 0], __unassigned__: [2, 0, 0, 0, 2] });
  });

  it("follows triage, one at a time and in bulk, and drops a session once nothing there is unresolved", async () => {
    await applyToOne(db(), "a1", { action: "resolve", actor: "t" });
    expect((await expectExact())["s-a"]).toEqual([1, 0, 1, 0, 0]);
    await applyToOne(db(), "a3", { action: "reopen", actor: "t" });
    await applyToOne(db(), "a2", { action: "assign", actor: "t", assignee: "someone" });
    expect((await expectExact())["s-a"]).toEqual([2, 0, 1, 1, 0]);
    await applyToMany(db(), ["a2", "a3", "b1"], { action: "resolve", actor: "t" });
    const after = await expectExact();
    expect(after["s-a"]).toBeUndefined();
    expect(after["s-b"]).toBeUndefined();
    await applyToMany(db(), ["a1", "a2"], { action: "reopen", actor: "t" });
    expect((await expectExact())["s-a"]).toEqual([2, 1, 1, 0, 0]);
  });

  it("follows changes of severity, session and status made by hand", async () => {
    const sql = readSql(db());
    await sql.run(`UPDATE "Interruption" SET "severity" = 'low', "type" = 'agent_crash', "occurredAtNs" = ${T0 - 7n} WHERE "id" = 'a1'`);
    await sql.run(`UPDATE "Interruption" SET "sessionId" = 's-moved' WHERE "id" = 'a2'`);
    await sql.run(`UPDATE "Interruption" SET "sessionId" = NULL, "status" = 'acknowledged' WHERE "id" = 'b1'`);
    await sql.run(`UPDATE "Interruption" SET "occurrences" = 5, "detail" = '{"x":1}'`);
    expect(await expectExact()).toMatchObject({ "s-a": [1, 0, 0, 0, 1], "s-moved": [1, 0, 1, 0, 0], __unassigned__: [3, 0, 0, 0, 2] });
  });

  it("follows retention deletes", async () => {
    await transaction(db(), (sql) =>
      insertRows(sql, "Interruption", [row("old1", "s-old", "high", "open", 1000n), row("old2", "s-old", "high", "resolved", 1000n)], { key: ["id"], update: "nothing" }),
    );
    expect((await expectExact())["s-old"]).toEqual([1, 0, 1, 0, 0]);
    await deleteOlderThan(db(), 2000n);
    expect((await expectExact())["s-old"]).toBeUndefined();
  });

  it("follows ingest with detection, and a replayed batch changes nothing", async () => {
    const calls = Array.from({ length: 6 }, (_, i) => ({
      call_id: `oc-${i}`, session_id: "s-ingest", agent_name: "CoshNG", provider: "openai", model: "qwen-plus",
      start_ns: String(T0 + BigInt(i) * 1_000_000_000n), end_ns: String(T0 + BigInt(i) * 1_000_000_000n + 500_000_000n),
      status_code: 429, error: "rate_limit_exceeded", input_messages: [{ role: "user", parts: [{ type: "text", content: "hi" }] }],
    }));
    await ingestCallBatch(db(), calls);
    const first = await expectExact();
    expect(first["s-ingest"]?.[0]).toBeGreaterThan(0);
    await ingestCallBatch(db(), calls);
    expect(await expectExact()).toEqual(first);
  });

  it("comes back, recounted, when a migration dropped its triggers", async () => {
    const before = await expectExact();
    const sql = readSql(db());
    const on = dialectOf(db()) === "postgres" ? ' ON "Interruption"' : "";
    await sql.run(`DROP TRIGGER "${OPEN_COUNT_TRIGGERS[0]}"${on}`);
    await transaction(db(), (tx) => insertRows(tx, "Interruption", [row("unseen", "s-unseen", "critical")], { key: ["id"], update: "nothing" }));
    expect((await stored())["s-unseen"]).toBeUndefined(); // missed while the trigger was gone
    expect(await ensureOpenCounts(db())).toBe(true);
    expect(await expectExact()).toEqual({ ...before, "s-unseen": [1, 1, 0, 0, 0] });
    expect(await ensureOpenCounts(db())).toBe(false);
  });

  it("a bulk resolve and an ingest that touch the same sessions in opposite orders never wait for each other", async () => {
    // When triggers updated each session's counter row, transaction A (resolving in s-x, then
    // s-y) and B (inserting in s-y, then s-x) each held the row the other needed: on PostgreSQL
    // one of them failed with "deadlock detected" after its 1 s deadlock_timeout. Now both only
    // append to the change log. (SQLite has one writer at a time: there, B waits for A.)
    await transaction(db(), (sql) => insertRows(sql, "Interruption", [row("x1", "s-x", "high"), row("y1", "s-y", "high")], { key: ["id"], update: "nothing" }));
    const before = await expectExact();
    if (dialectOf(db()) !== "postgres") return;
    const step = () => {
      let go!: () => void;
      return { done: new Promise<void>((r) => (go = r)), go: () => go() };
    };
    const [aFirst, bFirst, aDone] = [step(), step(), step()];
    const a = transaction(db(), async (sql) => {
      await sql.run(`UPDATE "Interruption" SET "status" = 'resolved' WHERE "id" = 'x1'`);
      aFirst.go();
      await bFirst.done;
      await sql.run(`UPDATE "Interruption" SET "status" = 'resolved' WHERE "id" = 'y1'`);
      aDone.go();
    });
    const b = transaction(db(), async (sql) => {
      await aFirst.done;
      await insertRows(sql, "Interruption", [row("y2", "s-y", "low")], { key: ["id"], update: "nothing" });
      bFirst.go();
      await aDone.done; // A got through its second step while B is still open
      await insertRows(sql, "Interruption", [row("x2", "s-x", "low")], { key: ["id"], update: "nothing" });
    });
    await Promise.all([a, b]);
    expect(await expectExact()).toEqual({ ...before, "s-x": [1, 0, 0, 0, 1], "s-y": [1, 0, 0, 0, 1] });
  });
});
