// The size cap's measure on PostgreSQL (lib/sweeps/postgresSpace.ts): what a table occupies is
// its bytes on disk times the share of its heap its tuples fill.
import { describe, expect, it } from "vitest";
import { fillShare, occupiedByRows, occupiedBytes, type TableSpace } from "@/lib/sweeps/postgresSpace";

const table = (over: Partial<TableSpace>): TableSpace => ({
  name: "Call", total: 3 * 8192 * 100, heap: 8192 * 100, tuples: 0, counted: 0, width: 100, columns: 10, nulls: true, ...over,
});

describe("occupied size", () => {
  it("is the share of the heap the tuples fill, times the bytes on disk", () => {
    const full = table({ tuples: 10_000 });
    expect(fillShare(full)).toBe(1);
    const half = table({ tuples: 2_000 });
    expect(fillShare(half)).toBeGreaterThan(0.25);
    expect(fillShare(half)).toBeLessThan(0.5);
    expect(occupiedBytes(half)).toBe(Math.round(half.total * fillShare(half)));
  });

  it("counts a table never analyzed whole, and one VACUUM found empty as nothing", () => {
    expect(occupiedBytes(table({ width: null, counted: -1, tuples: 0 }))).toBe(3 * 8192 * 100);
    expect(occupiedBytes(table({ width: null, counted: 0, tuples: 0 }))).toBe(0);
  });

  it("by an exact count, counts a table refilled since VACUUM found it empty, before the statistics see the new rows", () => {
    const refilled = table({ width: null, counted: 0, tuples: 0 }); // the statistics: still empty
    expect(occupiedByRows(refilled, 5_000)).toBe(refilled.total);
    expect(occupiedByRows(table({ tuples: 0 }), 2_000)).toBe(occupiedBytes(table({ tuples: 2_000 })));
    expect(occupiedByRows(refilled, 0)).toBe(0);
  });
});
