import type { Actor } from "./auth";

/** How an actor is named in activity rows and `*_by` fields. */
export function actorName(actor: Actor): string {
  return `${actor.kind}:${actor.name}`;
}
