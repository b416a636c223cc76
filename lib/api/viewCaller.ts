// The caller as saved views see it: who owns what they create, and whether they may change
// other people's shared views (admins).
import { actorName, type Actor } from "../auth/actor";
import type { ViewCaller } from "../db/queries/views";

export function viewCaller(actor: Actor): ViewCaller {
  return { key: `${actor.kind}:${actor.id}`, name: actorName(actor), me: actor.name, admin: actor.scopes.includes("admin") };
}
