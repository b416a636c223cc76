// Polling for what a server, worker or sweep does in its own time.

export type PollOptions = {
  /** How long before giving up (default 20 s: under the tests' 30 s timeout, so that the failure says what it last read). */
  timeoutMs?: number;
  /** Pause between two reads (default 100 ms). */
  everyMs?: number;
};

/**
 * Reads `read` until `check` holds and returns that value. After `timeoutMs` it fails with
 * `what` and the last value read, so that the failure says how far things got.
 */
export async function eventually<T>(what: string, read: () => T | Promise<T>, check: (value: T) => boolean, options: PollOptions = {}): Promise<T> {
  const { timeoutMs = 20_000, everyMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last read: ${describe(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** What a truthy check lets through. */
type Truthy<T> = Exclude<T, null | undefined | false | 0 | "">;

/** Polls `probe` until it returns something truthy, and returns that. */
export const waitFor = <T>(what: string, probe: () => T | Promise<T>, options?: PollOptions): Promise<Truthy<T>> =>
  eventually(what, probe, Boolean, options) as Promise<Truthy<T>>;

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}
