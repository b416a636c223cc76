// Forwarders (`sightdesk forward` on an agent host) register where their control listener is
// and the key the server signs terminate requests with: what the /api/forwarders routes do.
import type { DbTx } from "../db/client";
import type { Forwarder } from "../db/generated/client";
import { nowNs } from "../time";

export type ForwarderInput = { host: string; url: string; secret: string };

/** A forwarder as the API shows it (never its secret). */
export function forwarderRecord(f: Forwarder) {
  return { host: f.host, url: f.url, registered_by: f.registeredBy, created_at_ns: f.createdAtNs, last_seen_at_ns: f.lastSeenAtNs };
}

/** Registers (or re-registers: a restarted forwarder has a new URL and key) the forwarder of a host. */
export async function registerForwarder(db: DbTx, input: ForwarderInput, registeredBy: string) {
  const now = nowNs();
  const data = { url: input.url.replace(/\/+$/, ""), secret: input.secret, registeredBy, lastSeenAtNs: now };
  const row = await db.forwarder.upsert({ where: { host: input.host }, create: { host: input.host, ...data, createdAtNs: now }, update: data });
  return forwarderRecord(row);
}

export async function listForwarders(db: DbTx) {
  return (await db.forwarder.findMany({ orderBy: { host: "asc" } })).map(forwarderRecord);
}
