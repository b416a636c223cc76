import { describe, expect, it } from "vitest";
import { groupBy } from "@/lib/groupBy";

describe("groupBy", () => {
  it("groups by key in one pass, each group in the items' order, keys in first-seen order", () => {
    const groups = groupBy([{ k: "b", n: 1 }, { k: "a", n: 2 }, { k: "b", n: 3 }, { k: null, n: 4 }], (x) => x.k);
    expect([...groups.keys()]).toEqual(["b", "a", null]);
    expect(groups.get("b")!.map((x) => x.n)).toEqual([1, 3]);
    expect(groups.get(null)!.map((x) => x.n)).toEqual([4]);
  });

  it("holds a group of a million items (adding to a group does not copy it)", () => {
    const groups = groupBy(Array.from({ length: 1_000_000 }, (_, i) => i), () => "one");
    expect(groups.get("one")).toHaveLength(1_000_000);
  });
});
