// Large JSON arrays (ingest batches) are parsed in pieces of at most ~32 KiB, never decoded as one
// string: the result must be exactly what parsing the whole text gives, faults included.
import { describe, expect, it } from "vitest";
import { parseJsonBytes, parseJsonText } from "@/lib/api/body";
import { jsonArrayPieces, MAX_JSON_DEPTH } from "@/lib/json";

const call = (i: number) => ({
  call_id: `c-${i}`,
  start_ns: 1767268800000000123n + BigInt(i),
  // delimiters inside strings, escapes, and characters of two, three and four UTF-8 bytes
  text: `naïve, "quoted" ] } [ { \\ path\\ ${"日本語 ".repeat(i % 7)}😀 ${"word ".repeat(200)}`,
  nested: [[1, 2, { a: [] }], { "b,": "]" }],
});

const NS = /("start_ns":)(\d+)/g;
const bodyOf = (n: number, extra = "") => Buffer.from(`  [${Array.from({ length: n }, (_, i) => JSON.stringify(call(i), (_k, v) => (typeof v === "bigint" ? `#${v}` : v))).join(",\n")}${extra}] \n`.replace(/"#(\d+)"/g, "$1"));

describe("parseJsonBytes", () => {
  it("gives what parsing the whole text gives, with exact nanoseconds, in pieces of at most 32 KiB", () => {
    const bytes = bodyOf(400);
    expect(NS.test(bytes.toString())).toBe(true);
    const pieces = jsonArrayPieces(bytes)!;
    expect(pieces.length).toBeGreaterThan(10);
    for (const piece of pieces) expect(Buffer.byteLength(piece)).toBeLessThan(32 * 1024 + 3 * 1024);
    const parsed = parseJsonBytes(bytes) as Array<Record<string, unknown>>;
    expect(parsed).toEqual(parseJsonText(bytes.toString("utf8")));
    expect(parsed).toHaveLength(400);
    expect(parsed[399].start_ns).toBe("1767268800000000522");
    expect(parsed[6].text).toContain("日本語 ".repeat(6));
  });

  it("reports a fault in any piece as the whole text's fault", () => {
    for (const extra of [",", ", {\"a\": 1} {\"b\": 2}", ", {\"a\": tru}"]) {
      const bytes = bodyOf(400, extra);
      const whole = (() => {
        try {
          parseJsonText(bytes.toString("utf8"));
        } catch (e) {
          return (e as Error).message;
        }
      })();
      expect(whole).toMatch(/^Malformed JSON/);
      expect(() => parseJsonBytes(bytes)).toThrow(whole);
    }
  });

  it("leaves to the whole parse what is small, not an array, followed by more text, unterminated, too deep or too many values", () => {
    const big = bodyOf(400);
    expect(jsonArrayPieces(bodyOf(2))).toBeNull();
    expect(jsonArrayPieces(Buffer.from(`{"a": ${big}}`))).toBeNull();
    expect(jsonArrayPieces(Buffer.concat([big, Buffer.from("[]")]))).toBeNull();
    expect(jsonArrayPieces(Buffer.concat([big.subarray(0, big.length - 10), Buffer.from('"abc')]))).toBeNull();
    const deep = Buffer.from(`[${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)},${big.toString().trim().slice(1)}`);
    expect(jsonArrayPieces(deep)).toBeNull();
    expect(() => parseJsonBytes(deep)).toThrow(/nested deeper than/);
    expect(jsonArrayPieces(big, 1000)).toBeNull();
    expect(jsonArrayPieces(big, 10_000)).not.toBeNull();
  });
});
