// How the database answers "regressed" (lib/db/queries/filterSql.ts) for an outage: thousands of
// interruptions of one fingerprint, none resolved. Each row asked about must cost one index seek
// for a resolved one of its fingerprint, not a read of every row of the fingerprint (the inbox's
// grouped view asks for every row of the window: 5,000 of one fingerprint took 1.3 s, 20,000 ≈ 20 s).
import { describe, expect, it } from "vitest";
import { dialectOf } from "@/lib/db/sql";
import { REGRESSED_SQL } from "@/lib/db/queries/filterSql";
import { useTestDb } from "../support/testDb";

const db = useTestDb("regressed-plan");

describe("the regressed check on an outage's fingerprint", () => {
  it("seeks a resolved interruption of the fingerprint through an index instead of reading them all", async () => {
    const base = 1_800_000_000_000_000_000n;
    await db().interruption.createMany({
      data: Array.from({ length: 3_000 }, (_, i) => ({
        id: `outage-${i}`, type: "service_unavailable", severity: "high", occurredAtNs: base + BigInt(i), lastSeenNs: base + BigInt(i),
        occurrences: 1, detail: "{}", fingerprint: "fp-outage", status: "open", createdAtNs: base + BigInt(i),
      })),
    });
    const query = `SELECT "id", ${REGRESSED_SQL} AS "regressed" FROM "Interruption" ORDER BY "occurredAtNs" DESC LIMIT 200`;
    if (dialectOf(db()) === "postgres") {
      await db().$executeRawUnsafe(`ANALYZE "Interruption"`);
      const plan = (await db().$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN ${query}`)).map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).toContain("Interruption_fingerprint_status_resolvedAtNs_idx");
    } else {
      await db().$executeRawUnsafe("ANALYZE");
      const plan = (await db().$queryRawUnsafe<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${query}`)).map((r) => r.detail).join("\n");
      expect(plan).toMatch(/SEARCH earlier USING (COVERING )?INDEX Interruption_fingerprint_status_resolvedAtNs_idx/);
    }
    const rows = await db().$queryRawUnsafe<{ regressed: unknown }[]>(query);
    expect(rows.map((r) => Number(r.regressed))).toEqual(Array(200).fill(0));
  });
});
