// Times are integer nanoseconds since the Unix epoch (SPEC §1), as bigint.

export const NS_PER_MS = 1_000_000n;
export const NS_PER_HOUR = 3_600_000_000_000n;
/** The latest time a column can hold (a signed 64-bit integer of nanoseconds). */
export const MAX_NS = 2n ** 63n - 1n;

/** Why `ns` cannot be a time still to come (an expiry, a snooze's end): null when it can. */
export function notToCome(ns: bigint, now: bigint = nowNs()): string | null {
  if (ns <= now) return "must be in the future";
  return ns > MAX_NS ? "must be before 2262 (2^63 ns)" : null;
}

/**
 * The width of each of `buckets` equal buckets from `startNs` to `endNs` (both included), rounded
 * up; at most MAX_NS (one bucket over every time there is would be 2^63, past a 64-bit column).
 */
export function bucketWidthNs(startNs: bigint, endNs: bigint, buckets: number): bigint {
  const width = (endNs - startNs + 1n + BigInt(buckets) - 1n) / BigInt(buckets);
  return width > MAX_NS ? MAX_NS : width;
}

/** The current time, or the time `ms` (milliseconds since the epoch), in nanoseconds. */
export function nowNs(ms: number = Date.now()): bigint {
  return BigInt(ms) * NS_PER_MS;
}
