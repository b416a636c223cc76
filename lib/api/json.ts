// JSON with exact integer nanoseconds. JSON.parse rounds integers beyond 2^53 (a 19-digit ns
// timestamp loses its last digits), so `*_ns` values are read as strings, and bigints are
// written back as bare JSON integers.

// A JSON string token, optionally followed by `: <integer>`: a key and its integer value.
const KEY_WITH_INTEGER = /"((?:[^"\\]|\\.)*)"(\s*:\s*)(-?\d{16,})(?=\s*[,}\]])/g;

/** JSON.parse, except that long integers under keys ending in `_ns` stay exact (as strings). */
export function parseJsonExact(text: string): unknown {
  const guarded = text.replace(KEY_WITH_INTEGER, (whole, key: string, colon: string, digits: string) =>
    key.endsWith("_ns") ? `"${key}"${colon}"${digits}"` : whole,
  );
  return JSON.parse(guarded);
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
