import type { Actor } from "./auth";

/** How an actor is named in activity rows and `*_by` fields. */
export function actorName(actor: Actor): string {
  return `${actor.kind}:${actor.name}`;
}

/** A filter's `assignee=me` names the caller (a user's email, a token's name). */
export function resolveMe<F extends { assignees?: string[] }>(filter: F, actor: Actor): F {
  if (!filter.assignees?.includes("me")) return filter;
  return { ...filter, assignees: filter.assignees.map((a) => (a === "me" ? actor.name : a)) };
}
