// What a server process does when asked to stop (SIGTERM from a supervisor or a rolling
// restart, SIGINT). Next's own handler closes the HTTP server, waits for the requests under
// way, then calls process.exit; handing work over to the other processes must happen before
// that exit — a database round trip takes longer than Next's close of an idle server — so the
// exit waits for it, at most GRACE_MS. When nothing else handles the signal (Next leaves it to
// the application under NEXT_MANUAL_SIG_HANDLE), the process ends by it once the hand-over is
// done, as it would have without this handler.

/** An alert delivery in flight ends within its 5 s timeout (lib/alerts/send.ts), then is recorded. */
const GRACE_MS = 8_000;
const REGISTERED = Symbol.for("sightdesk.onShutdown");

/** Runs `handOver` once when the process is asked to stop, and holds its exit until that is done. */
export function onShutdown(handOver: () => Promise<void>, log: (message: string) => void = (m) => console.error(`[sightdesk] ${m}`)): void {
  const holder = globalThis as { [REGISTERED]?: true };
  if (holder[REGISTERED]) return; // Next.js may run startup code more than once
  holder[REGISTERED] = true;
  let done: Promise<void> | null = null;
  const stopping = (signal: NodeJS.Signals) => {
    if (!done) {
      let grace: ReturnType<typeof setTimeout> | undefined;
      done = Promise.race([
        handOver().catch((e: Error) => log(`shutdown hand-over failed: ${e.message}`)),
        new Promise<void>((resolve) => (grace = setTimeout(resolve, GRACE_MS))),
      ]).finally(() => clearTimeout(grace));
      const exit = process.exit.bind(process);
      process.exit = ((code?: number | string | null) => void done!.then(() => exit(code))) as unknown as typeof process.exit;
    }
    // this handler is gone (once) and no other is left: end by the signal, its default action
    if (process.listenerCount(signal) === 0) {
      process.off("SIGTERM", stopping).off("SIGINT", stopping);
      void done.then(() => process.kill(process.pid, signal));
    }
  };
  process.once("SIGTERM", stopping);
  process.once("SIGINT", stopping);
}
