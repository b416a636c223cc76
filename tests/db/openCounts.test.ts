// SessionOpenCount stays exactly the unresolved interruptions per session through every write
// path (ingest with detection, triage one by one and in bulk, retention deletes, an import,
// hand-written SQL), and comes back by itself when a migration dropped its triggers. A bulk
// insert that counts its rows itself (the import) leaves exactly what the triggers leave.
import { describe, expect, it } from "vitest";
import { ingestCallBatch } from "@/lib/api/ingest";
import { insertNew, insertRows } from "@/lib/db/multiRow";
import { ensureOpenCounts, foldOpenCounts, insertCountedInBulk, OPEN_COUNT_TRIGGERS } from "@/lib/db/openCounts";
import { dialectOf, readSql, transaction, type Sql } from "@/lib/db/sql";
import { deleteOlderThan } from "@/lib/sweeps/sweep";
import { applyToMany, applyToOne } from "@/lib/triage/lifecycle";
import { expectOpenCountsExact, storedOpenCounts } from "../support/openCounts";
import { useTestDb } from "../support/testDb";

const db = useTestDb("opencounts");

const stored = () => storedOpenCounts(db());
const expectExact = () => expectOpenCountsExact(db());

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

  it("logs a bulk insert exactly as the trigger logs it row by row, and keeps the trigger", async () => {
    const batch = [
      row("k1", "s-a", "critical", "open", T0 + 50n), // a session counted before: its later bound widens, its earlier stays
      row("k2", "s-a", "low", "acknowledged", T0 + 100n, "rate_limit"),
      row("k3", "s-bulk", "high", "open", T0, 'quote"type'),
      row("k4", "s-bulk", "high", "open", T0 + 1n, 'quote"type'),
      row("k5", "s-bulk", "medium", "resolved"),
      row("k6", null, "warning"),
      row("k5", "s-other", "critical"), // twice in the batch: the first one counts
      row("a1", "s-a", "critical"), // stored already: not inserted, not counted
    ];
    // the change log as text, to compare byte for byte (the tables are folded from it)
    await foldOpenCounts(db());
    const tables = async (sql: Sql) =>
      JSON.stringify(
        await sql.all(`SELECT "sessionId", "type", "severity", "occurredAtNs", "change" FROM "SessionOpenDelta" ORDER BY 1, 2, 3, 4, 5`),
        (_, v) => (typeof v === "bigint" ? String(v) : v),
      );
    const rolledBack = new Error("roll back");
    let byTrigger = "";
    await expect(
      transaction(db(), async (sql) => {
        await insertNew(sql, "Interruption", batch, "id");
        byTrigger = await tables(sql);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    const triggers = async () =>
      readSql(db()).all(
        dialectOf(db()) === "postgres"
          ? `SELECT "tgname"::text AS "name" FROM pg_trigger WHERE NOT "tgisinternal" ORDER BY 1`
          : `SELECT "name", "sql" FROM sqlite_master WHERE "type" = 'trigger' ORDER BY "name"`,
      );
    const before = await triggers();
    const inserted = await transaction(db(), async (sql) => {
      const done = await insertCountedInBulk(sql, () => insertNew(sql, "Interruption", batch, "id"));
      expect(await tables(sql)).toBe(byTrigger);
      return done;
    });
    expect(inserted).toEqual([true, true, true, true, true, true, false, false]);
    expect(await triggers()).toEqual(before);
    expect((await expectExact())["s-bulk"]).toEqual([2, 0, 2, 0, 0]);
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
