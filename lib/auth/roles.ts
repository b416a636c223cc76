import { SCOPES, type Scope } from "./scopes";

export const ROLES = ["viewer", "responder", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** What a signed-in user may do, in token scopes: viewer reads, responder triages, admin all. */
export function scopesOf(role: string): Scope[] {
  if (role === "admin") return [...SCOPES];
  if (role === "responder") return ["read", "triage"];
  if (role === "viewer") return ["read"];
  return [];
}
