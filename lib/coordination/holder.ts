// Who this server process is, to the other processes sharing the database: the name on the
// leases it holds and the work rows it claims. Host and pid make logs and the sweep log
// readable; the random part keeps a restarted process with a reused pid apart from its
// predecessor (whose leases must expire, not be renewed by the newcomer).
import crypto from "node:crypto";
import os from "node:os";

const KEY = Symbol.for("sightdesk.processHolder");
type WithHolder = { [KEY]?: string };

/** This process's holder name (one per process: Next.js may load this module more than once). */
export function processHolder(): string {
  const g = globalThis as WithHolder;
  g[KEY] ??= `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
  return g[KEY];
}
