// Who is acting: a token or a signed-in user, with the scopes they hold (SPEC §5.3).
import { forbidden } from "../domain/errors";
import type { Scope } from "./scopes";

/** `actsFor`: for a token a user made (directly, or through a token of theirs), that user ("user:<email>"). */
export type Actor = { kind: "token" | "user"; id: string; name: string; scopes: Scope[]; role?: string; actsFor?: string };

/** How an actor is named in activity rows and `*_by` fields. */
export function actorName(actor: Actor): string {
  return `${actor.kind}:${actor.name}`;
}

/** The start of a signed-in user's actor name. */
export const USER_ACTOR_PREFIX = "user:";

/** A signed-in user's actor name (actorName of that user): `*_by` fields, a token's maker. */
export const userActorName = (email: string): string => `${USER_ACTOR_PREFIX}${email}`;

/** The email of a user's actor name; null for a token's (or none). */
export const userOfActorName = (name: string | null): string | null => (name?.startsWith(USER_ACTOR_PREFIX) ? name.slice(USER_ACTOR_PREFIX.length) : null);

/** A filter's `assignee=me` names the caller (a user's email, a token's name). */
export function resolveMe<F extends { assignees?: string[] }>(filter: F, actor: Actor): F {
  if (!filter.assignees?.includes("me")) return filter;
  return { ...filter, assignees: filter.assignees.map((a) => (a === "me" ? actor.name : a)) };
}

/** The actor, when it holds `scope` (or admin); otherwise forbidden (403). */
export function requireScope(actor: Actor, scope: Scope): Actor {
  if (!actor.scopes.includes(scope) && !actor.scopes.includes("admin")) {
    throw forbidden(actor.kind === "user" ? `Your role (${actor.role}) does not allow this` : `This token lacks the '${scope}' scope`);
  }
  return actor;
}
