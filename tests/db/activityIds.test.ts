// Activity ids only grow (retention deletes rows, never gives their ids back): past 2^31 a resolve
// must still write its activity and the history must read back. SQLite's rowid keys are 64-bit;
// on PostgreSQL (TEST_DATABASE_URL) the column and its sequence were 32-bit until a migration.
import { describe, expect, it } from "vitest";
import { ingestCallBatch } from "@/lib/api/ingest";
import { dialectOf, readSql } from "@/lib/db/sql";
import { activityOf, applyToOne } from "@/lib/triage/lifecycle";
import { activityRecord } from "@/lib/wire/records";
import { useTestDb } from "../support/testDb";

const db = useTestDb("activityids");

const T0 = 1_800_000_000_000_000_000n;
const PAST_32_BITS = 3n * 2n ** 31n;

describe("InterruptionActivity ids", () => {
  it("go past 2^31: a resolve writes its activity and the history reads back in order", async () => {
    await ingestCallBatch(db(), [{
      call_id: "ai-1", session_id: "s-ai", agent_name: "CoshNG", provider: "openai", model: "qwen-plus",
      start_ns: String(T0), end_ns: String(T0 + 500_000_000n), status_code: 429, error: "rate_limit_exceeded",
      input_messages: [{ role: "user", parts: [{ type: "text", content: "hi" }] }],
    }]);
    const [{ id }] = (await db().interruption.findMany({ where: { callId: "ai-1" }, select: { id: true } }));
    await applyToOne(db(), id, { action: "acknowledge", actor: "user:a@example.com" });
    const sql = readSql(db());
    if (dialectOf(db()) === "postgres") await sql.all(`SELECT setval('"InterruptionActivity_id_seq"', ${PAST_32_BITS})`);
    else await sql.run(`UPDATE sqlite_sequence SET seq = ${PAST_32_BITS} WHERE name = 'InterruptionActivity'`);

    await applyToOne(db(), id, { action: "resolve", actor: "user:a@example.com", note: "fixed upstream" });

    const rows = await activityOf(db(), id);
    expect(rows.map((r) => String(r.id))).toEqual(["1", String(PAST_32_BITS + 1n)]);
    expect(rows.map(activityRecord).map((a) => [a.action, a.note])).toEqual([["acknowledge", null], ["resolve", "fixed upstream"]]);
  });
});
