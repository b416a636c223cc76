// Bounded memos (lib/memo.ts): a value is computed once per key, the memo starts over when
// full, and long keys are never kept.
import { describe, expect, it } from "vitest";
import { Memo } from "@/lib/memo";

describe("Memo", () => {
  it("computes a key's value once, and again after the memo filled and started over", () => {
    const memo = new Memo<number>(2);
    let computed = 0;
    const get = (k: string) => memo.get(k, () => ++computed);
    expect([get("a"), get("a"), get("b"), get("a")]).toEqual([1, 1, 2, 1]);
    expect(get("c")).toBe(3); // full: starts over with c
    expect(get("a")).toBe(4);
  });

  it("never keeps a key longer than its bound", () => {
    const memo = new Memo<number>(10, 3);
    let computed = 0;
    expect([memo.get("long", () => ++computed), memo.get("long", () => ++computed), memo.get("abc", () => ++computed), memo.get("abc", () => ++computed)]).toEqual([1, 2, 3, 3]);
  });
});
