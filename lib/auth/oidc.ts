// Who may sign in through single sign-on (OIDC), and as which user. Accounts are linked by the
// provider's `sub`, never by email alone:
// - the ID token must say `email_verified: true`;
// - SIGHTDESK_OIDC_ALLOWED_DOMAINS (comma-separated email domains), when set, limits who may
//   sign in, linked users included;
// - a user linked to this `sub` signs in as themselves;
// - else a user with the same email is linked to this `sub`, unless already linked to another;
// - else a new user is created with SIGHTDESK_OIDC_DEFAULT_ROLE (viewer) — unless an admin
//   removed a user with this `sub` or email (lib/auth/users.ts deleteUser); an admin adding a
//   user with that email again lifts it.
import crypto from "node:crypto";
import type { DbTx } from "../db/client";
import type { User } from "../db/generated/client";
import { nowNs } from "../domain/time";
import { ROLES, type Role } from "./roles";

type Env = Record<string, string | undefined>;

export type OidcClaims = { sub?: unknown; email?: unknown; email_verified?: unknown; name?: unknown };

export type OidcDecision =
  | { ok: true; user: User; outcome: "signed-in" | "linked" | "created" }
  | { ok: false; reason: "no-subject" | "no-email" | "email-not-verified" | "domain-not-allowed" | "linked-to-another-subject" | "removed" };

/** SIGHTDESK_OIDC_ALLOWED_DOMAINS as lower-case domains; empty: every domain. */
export function allowedDomains(env: Env = process.env): string[] {
  return (env.SIGHTDESK_OIDC_ALLOWED_DOMAINS ?? "")
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter(Boolean);
}

function defaultRole(env: Env): Role {
  const configured = env.SIGHTDESK_OIDC_DEFAULT_ROLE as Role | undefined;
  return configured && ROLES.includes(configured) ? configured : "viewer";
}

/** Decides an OIDC sign-in from the ID token's claims; links or creates the user when allowed. */
export async function decideOidcSignIn(db: DbTx, claims: OidcClaims, env: Env = process.env): Promise<OidcDecision> {
  const sub = typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : null;
  if (!sub) return { ok: false, reason: "no-subject" };
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
  if (!email.includes("@")) return { ok: false, reason: "no-email" };
  if (claims.email_verified !== true) return { ok: false, reason: "email-not-verified" };
  const domains = allowedDomains(env);
  if (domains.length > 0 && !domains.includes(email.slice(email.lastIndexOf("@") + 1))) return { ok: false, reason: "domain-not-allowed" };

  const linked = await db.user.findUnique({ where: { oidcSubject: sub } });
  if (linked) return { ok: true, user: linked, outcome: "signed-in" };

  const sameEmail = await db.user.findUnique({ where: { email } });
  if (sameEmail) {
    if (sameEmail.oidcSubject !== null) return { ok: false, reason: "linked-to-another-subject" };
    const user = await db.user.update({ where: { id: sameEmail.id }, data: { oidcSubject: sub } });
    return { ok: true, user, outcome: "linked" };
  }

  if (await db.removedUser.findFirst({ where: { OR: [{ oidcSubject: sub }, { email }] } })) return { ok: false, reason: "removed" };
  const name = typeof claims.name === "string" ? claims.name.slice(0, 100) : null;
  const user = await db.user.create({
    data: { id: crypto.randomUUID(), email, name, role: defaultRole(env), passwordHash: "!oidc", createdAtNs: nowNs(), oidcSubject: sub },
  });
  return { ok: true, user, outcome: "created" };
}
