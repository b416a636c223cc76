// How a later page of the inbox's list is read (lib/db/queries/interruptions.ts listSql): from
// the cursor on, through the window index — not the whole window again from its newest row,
// each row before the cursor read and dropped by the cursor's OR (page k cost k pages).
// PostgreSQL shows which conditions bound the index scan; SQLite's plan does not say.
import { describe, expect, it } from "vitest";
import { listSql, encodeCursor } from "@/lib/db/queries/interruptions";
import { readSql } from "@/lib/db/sql";
import { testPostgresUrl } from "../support/database";
import { useTestDb } from "../support/testDb";

const db = useTestDb("page-plan");

describe("a later page of the list", () => {
  it.skipIf(!testPostgresUrl())("is read from its cursor on: the cursor's time bounds the index scan", async () => {
    const base = 1_800_000_000_000_000_000n;
    await db().interruption.createMany({
      data: Array.from({ length: 3_000 }, (_, i) => ({
        id: `page-${String(i).padStart(5, "0")}`, type: "rate_limit", severity: "medium", occurredAtNs: base + BigInt(i) * 1_000_000n, lastSeenNs: base,
        occurrences: 1, detail: "{}", fingerprint: `fp-${i % 40}`, status: "open", createdAtNs: base,
      })),
    });
    await db().$executeRawUnsafe(`ANALYZE "Interruption"`);
    const cursor = encodeCursor({ occurredAtNs: base + 1_500n * 1_000_000n, id: "page-01500", severity: "medium", type: "rate_limit", agentName: null });
    const { sql, params } = listSql({ startNs: base, endNs: base + 10_000_000_000n }, { limit: 200, cursor });
    const plan = (await readSql(db()).all(`EXPLAIN ${sql}`, params)).map((r) => String(Object.values(r)[0])).join("\n");
    const indexCond = plan.split("\n").filter((l) => l.includes("Index Cond")).join("\n");
    // before: only the window's two bounds bounded the scan, the cursor was a Filter
    expect(indexCond.match(/"occurredAtNs" [<>]=/g)?.length ?? 0, plan).toBeGreaterThanOrEqual(3);
    const rows = await readSql(db()).all(sql, params);
    expect(rows.map((r) => String(r.id))).toEqual(Array.from({ length: 200 }, (_, i) => `page-${String(1499 - i).padStart(5, "0")}`));
  });
});
