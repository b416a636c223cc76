// How the database finds the interruptions of a page of calls (a session's calls, a call's
// detail: lib/db/queries/sessions.ts markersFor): through an index on the call, not by reading
// every interruption stored (a million of them: a scan per click on a call).
import { describe, expect, it } from "vitest";
import { dialectOf } from "@/lib/db/sql";
import { useTestDb } from "../support/testDb";

const db = useTestDb("call-markers-plan");

describe("the interruptions of a page of calls", () => {
  it("are found through the index on their call", async () => {
    const base = 1_800_000_000_000_000_000n;
    await db().interruption.createMany({
      data: Array.from({ length: 3_000 }, (_, i) => ({
        id: `marker-${i}`, callId: `call-${i}`, type: "rate_limit", severity: "medium", occurredAtNs: base + BigInt(i), lastSeenNs: base + BigInt(i),
        occurrences: 1, detail: "{}", fingerprint: `fp-${i % 40}`, status: "open", createdAtNs: base + BigInt(i),
      })),
    });
    const query = `SELECT "id", "callId", "type" FROM "Interruption" WHERE "callId" IN ('call-7', 'call-1234', 'call-2999')`;
    let plan: string;
    if (dialectOf(db()) === "postgres") {
      await db().$executeRawUnsafe(`ANALYZE "Interruption"`);
      plan = (await db().$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN ${query}`)).map((r) => r["QUERY PLAN"]).join("\n");
    } else {
      await db().$executeRawUnsafe("ANALYZE");
      plan = (await db().$queryRawUnsafe<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${query}`)).map((r) => r.detail).join("\n");
    }
    // before: "SCAN Interruption" (SQLite), "Seq Scan on Interruption" (PostgreSQL)
    expect(plan).toContain("Interruption_callId_idx");
    expect((await db().$queryRawUnsafe<{ id: string }[]>(query)).map((r) => r.id).sort()).toEqual(["marker-1234", "marker-2999", "marker-7"]);
  });
});
