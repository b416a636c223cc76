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

/** JSON.stringify that writes bigint values as exact JSON integers. */
export function stringifyExact(value: unknown, space?: number): string {
  try {
    // Most large responses (counts) hold no bigint: the native path is several times faster,
    // and one that does throws at its first bigint.
    return JSON.stringify(value, null, space);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  // Each bigint is written as a string holding a mark, whose quotes then come off. The mark has a
  // part drawn for this call: a string of the data (an agent's call id) cannot pose as one and be
  // written as a number.
  const nonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `\u0000bigint:${nonce}:${v}` : v), space);
  return text.replace(new RegExp(`"\\\\u0000bigint:${nonce}:(-?\\d+)"`, "g"), "$1");
}
