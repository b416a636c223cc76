/** The current time as integer nanoseconds since the Unix epoch. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

export const NS_PER_MS = 1_000_000n;
export const NS_PER_HOUR = 3_600_000_000_000n;
