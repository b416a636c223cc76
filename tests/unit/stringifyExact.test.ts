// Exact JSON integers for bigints, and nothing else turned into a number.
import { describe, expect, it } from "vitest";
import { parseJsonExact, stringifyExact } from "@/lib/wire/json";

describe("stringifyExact", () => {
  it("writes bigints as bare JSON integers, exactly", () => {
    expect(stringifyExact({ at_ns: 1_800_000_000_123_456_789n, n: [-5n, 0n], s: "x" })).toBe('{"at_ns":1800000000123456789,"n":[-5,0],"s":"x"}');
    expect(stringifyExact({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
  });

  it("leaves a string of the data that looks like its mark a string (an agent's call id)", () => {
    const posing = "\u0000bigint:7";
    const text = stringifyExact({ call_id: posing, at_ns: 1n });
    expect(parseJsonExact(text)).toEqual({ call_id: posing, at_ns: 1 });
  });
});
