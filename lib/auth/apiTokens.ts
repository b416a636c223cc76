// API tokens (SPEC §5.3): random secrets shown once, stored as SHA-256, with scopes, an
// optional expiry, last use and revocation.
import crypto from "node:crypto";
import { conflict, forbidden, notFound } from "../domain/errors";
import type { Db, DbTx } from "../db/client";
import type { ApiToken } from "../db/generated/client";
import { nowNs } from "../domain/time";
import { isDashboardTokenId } from "./dashboardToken";
import { actorName, USER_ACTOR_PREFIX, userActorName, userOfActorName, type Actor } from "./actor";
import { forgetToken, forgetTokensMadeBy } from "./identity";
import { scopesOf, type Role } from "./roles";
import { parseScopes, type Scope } from "./scopes";
import { hashToken, newSecret } from "./tokenSecrets";

export async function createToken(db: DbTx, input: { name: string; scopes: Scope[]; expiresAtNs?: bigint | null; createdBy: string }) {
  const secret = newSecret();
  const row = await db.apiToken.create({
    data: {
      id: crypto.randomUUID(),
      name: input.name,
      hash: hashToken(secret),
      scopes: [...new Set(input.scopes)].join(","),
      createdBy: input.createdBy,
      createdAtNs: nowNs(),
      expiresAtNs: input.expiresAtNs ?? null,
    },
  });
  return { ...tokenRecord(row), token: secret };
}

/**
 * A token made by `actor`. A token made through a user's token is that user's too (`createdBy`):
 * it loses its rights with theirs. A user making one must be an admin as the database says now,
 * read under a lock on their row: a demotion committed a moment ago (another process's cache may
 * still say admin) refuses it, and one committing meanwhile sees the new token and revokes it.
 */
export async function createTokenAs(db: Db, actor: Actor, input: { name: string; scopes: Scope[]; expiresAtNs?: bigint | null }) {
  const maker = actor.kind === "user" ? actorName(actor) : (actor.actsFor ?? actorName(actor));
  return db.$transaction(async (tx) => {
    const email = userOfActorName(maker);
    if (email !== null) {
      await tx.$executeRaw`UPDATE "User" SET "role" = "role" WHERE "email" = ${email}`;
      const user = await tx.user.findUnique({ where: { email }, select: { role: true } });
      if (user?.role !== "admin") throw forbidden(`${email} is no longer an admin: only admins make tokens`);
    }
    return createToken(tx, { ...input, createdBy: maker });
  });
}

export function tokenRecord(t: ApiToken) {
  return {
    id: t.id,
    name: t.name,
    scopes: parseScopes(t.scopes),
    created_by: t.createdBy,
    created_at_ns: t.createdAtNs,
    expires_at_ns: t.expiresAtNs,
    last_used_at_ns: t.lastUsedAtNs,
    revoked_at_ns: t.revokedAtNs,
  };
}

export async function listTokens(db: DbTx) {
  return (await db.apiToken.findMany({ orderBy: { createdAtNs: "desc" } })).map(tokenRecord);
}

export async function revokeToken(db: DbTx, id: string) {
  const token = await db.apiToken.findUnique({ where: { id } });
  if (!token) throw notFound("Token not found");
  if (isDashboardTokenId(id)) throw conflict("The token file's token cannot be revoked here: delete the file and restart");
  if (token.revokedAtNs === null) await db.apiToken.update({ where: { id }, data: { revokedAtNs: nowNs() } });
  forgetToken(token.hash);
  return tokenRecord((await db.apiToken.findUnique({ where: { id } }))!);
}

/**
 * Revokes the tokens a user made that can do more than `role` allows (null: the user is removed,
 * every one of them): a token must not keep rights its maker lost, such as an admin token a
 * demoted admin could use to make herself admin again. Run it in the transaction that changes the user.
 */
export async function revokeTokensBeyond(db: DbTx, email: string, role: Role | null): Promise<number> {
  const allowed = new Set<Scope>(role ? scopesOf(role) : []);
  const made = await db.apiToken.findMany({ where: { createdBy: userActorName(email), revokedAtNs: null } });
  const beyond = made.filter((t) => parseScopes(t.scopes).some((s) => !allowed.has(s)));
  if (!beyond.length) return 0;
  await db.apiToken.updateMany({ where: { id: { in: beyond.map((t) => t.id) } }, data: { revokedAtNs: nowNs() } });
  forgetTokensMadeBy(userActorName(email)); // and again once it commits (the users routes)
  return beyond.length;
}

/**
 * At start: revokes what users' tokens can do beyond their makers' current role (or all of them
 * for a user no longer there). Users demoted or removed before a demotion revoked their tokens
 * (and any change the revocation missed) are caught up with; nothing is done twice.
 */
export async function revokeTokensOfLostRights(db: DbTx): Promise<number> {
  const made = await db.apiToken.findMany({ where: { createdBy: { startsWith: USER_ACTOR_PREFIX }, revokedAtNs: null }, select: { createdBy: true } });
  const makers = [...new Set(made.map((t) => userOfActorName(t.createdBy)!))];
  if (!makers.length) return 0;
  const users = new Map((await db.user.findMany({ where: { email: { in: makers } }, select: { email: true, role: true } })).map((u) => [u.email, u.role as Role]));
  let revoked = 0;
  for (const email of makers) revoked += await revokeTokensBeyond(db, email, users.get(email) ?? null);
  return revoked;
}
