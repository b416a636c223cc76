// How a server process is started: `next start` on Node with the V8 flags the server needs.
import path from "node:path";

/**
 * A young generation of 64 MB semi-spaces (16 MB by default): ingest allocates a request's
 * parsed calls, rows and SQL text and drops them within milliseconds, and with the default
 * size the scavenges that sweep them took 10–17 % of both the request and the ingest thread.
 * Batches of 50 on PostgreSQL went 3,498 / 3,947 calls/s against 3,298 / 3,613 (BENCHMARKS.md).
 * The cost: up to ~150 MB more per busy thread (the request thread and the ingest worker).
 * `npm start` (package.json) passes the same flags through NODE_OPTIONS.
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=64"];

/**
 * `node` arguments that run `next start` of the build in `root` on `port` and `host`. A flag the
 * operator sets in NODE_OPTIONS wins, as under `npm start` (on the command line, ours would).
 */
export function nextStartArgs(root: string, port: number | string, host: string, nodeOptions = process.env.NODE_OPTIONS ?? ""): string[] {
  const flags = SERVER_NODE_FLAGS.filter((f) => !nodeOptions.includes(f.split("=")[0]));
  return [...flags, path.join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", host];
}
