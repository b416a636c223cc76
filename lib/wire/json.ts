// JSON with exact integer nanoseconds. JSON.parse rounds integers beyond 2^53 (a 19-digit ns
// timestamp loses its last digits), so `*_ns` values are read as strings, and bigints are
// written back as bare JSON integers.

import { parseJsonBounded } from "../json";

/**
 * JSON.parse, except that long integers under keys ending in `_ns` stay exact (as strings),
 * and values nested deeper than MAX_JSON_DEPTH (or, with `maxContainers`, text of more objects
 * and arrays) are refused (a SyntaxError).
 */
export function parseJsonExact(text: string, maxContainers?: number): unknown {
  return parseJsonBounded(text, { quoteNs: true, maxContainers });
}

const MARK = "\u0000bigint:";
const MARKED = /"\\u0000bigint:(-?\d+)"/g;

/** JSON.stringify that writes bigint values as exact JSON integers. */
export function stringifyExact(value: unknown, space?: number): string {
  try {
    // Most large responses (counts) hold no bigint: the native path is several times faster,
    // and one that does throws at its first bigint.
    return JSON.stringify(value, null, space);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${MARK}${v}` : v), space);
  return text.replace(MARKED, "$1");
}
