// What a server process does when asked to stop (SIGTERM from a supervisor or a rolling
// restart, SIGINT). Next's own handler closes the HTTP server, waits for the requests under
// way, then calls process.exit; handing work over to the other processes must happen before
// that exit — a database round trip takes longer than Next's close of an idle server — so the
// exit waits for it, at most GRACE_MS.

const GRACE_MS = 3_000;
const REGISTERED = Symbol.for("sightdesk.onShutdown");

/** Runs `handOver` once when the process is asked to stop, and holds its exit until that is done. */
export function onShutdown(handOver: () => Promise<void>, log: (message: string) => void = (m) => console.error(`[sightdesk] ${m}`)): void {
  const holder = globalThis as { [REGISTERED]?: true };
  if (holder[REGISTERED]) return; // Next.js may run startup code more than once
  holder[REGISTERED] = true;
  const stopping = () => {
    let grace: ReturnType<typeof setTimeout> | undefined;
    const done = Promise.race([
      handOver().catch((e: Error) => log(`shutdown hand-over failed: ${e.message}`)),
      new Promise<void>((resolve) => (grace = setTimeout(resolve, GRACE_MS))),
    ]).finally(() => clearTimeout(grace));
    const exit = process.exit.bind(process);
    process.exit = ((code?: number | string | null) => void done.then(() => exit(code))) as unknown as typeof process.exit;
  };
  process.once("SIGTERM", stopping);
  process.once("SIGINT", stopping);
}
