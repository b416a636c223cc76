import { describe, expect, it } from "vitest";
import { isSeverityRank, severityRank } from "@/lib/db/queries/filterSql";

describe("severityRank (as SEVERITY_RANK_SQL weighs a severity)", () => {
  it("weighs the four severities, and anything else (an imported 'constructor' too) as the least", () => {
    expect(["critical", "high", "medium", "low"].map(severityRank)).toEqual([4, 3, 2, 1]);
    for (const odd of ["constructor", "toString", "__proto__", "urgent"]) expect(severityRank(odd)).toBe(1);
    expect([4, 1].every(isSeverityRank)).toBe(true);
    expect([1.5, 0, 5, "4", null].some(isSeverityRank)).toBe(false);
  });
});
