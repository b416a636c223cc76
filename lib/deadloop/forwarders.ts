// Forwarders (`sightdesk forward` on an agent host) register where their control listener is
// and the key the server signs terminate requests with: what the /api/forwarders routes do.
import { actorName, type Actor } from "../auth/actor";
import type { DbTx } from "../db/client";
import type { Forwarder } from "../db/generated/client";
import { conflict } from "../domain/errors";
import { nowNs } from "../domain/time";

export type ForwarderInput = { host: string; url: string; secret: string };

/** A forwarder as the API shows it (never its secret). */
export function forwarderRecord(f: Forwarder) {
  return { host: f.host, url: f.url, registered_by: f.registeredBy, created_at_ns: f.createdAtNs, last_seen_at_ns: f.lastSeenAtNs };
}

/**
 * Registers (or re-registers: a restarted forwarder has a new URL and key) the forwarder of a
 * host. Only whoever registered a host (or an admin) may point it elsewhere: another ingest
 * token must not be able to redirect the host's signed terminate requests to itself.
 */
export async function registerForwarder(db: DbTx, input: ForwarderInput, actor: Actor) {
  const by = { id: `${actor.kind}:${actor.id}`, name: actorName(actor) };
  const existing = await db.forwarder.findUnique({ where: { host: input.host }, select: { registeredById: true, registeredBy: true } });
  if (existing?.registeredById && existing.registeredById !== by.id && !actor.scopes.includes("admin")) {
    throw conflict(`host: the forwarder of ${input.host} was registered by ${existing.registeredBy ?? "someone else"}; re-register it with that token, or with an admin token`);
  }
  const now = nowNs();
  const data = { url: input.url.replace(/\/+$/, ""), secret: input.secret, registeredBy: by.name, registeredById: by.id, lastSeenAtNs: now };
  const row = await db.forwarder.upsert({ where: { host: input.host }, create: { host: input.host, ...data, createdAtNs: now }, update: data });
  return forwarderRecord(row);
}

export async function listForwarders(db: DbTx) {
  return (await db.forwarder.findMany({ orderBy: { host: "asc" } })).map(forwarderRecord);
}
