// API tokens (SPEC §5.3): random secrets shown once, stored as SHA-256, with scopes, an
// optional expiry, last use and revocation.
import crypto from "node:crypto";
import { conflict, notFound } from "../domain/errors";
import type { DbTx } from "../db/client";
import type { ApiToken } from "../db/generated/client";
import { nowNs } from "../domain/time";
import { isDashboardTokenId } from "./dashboardToken";
import { forgetToken } from "./identity";
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
export async function revokeTokensBeyond(db: DbTx, email: string, role: Role | null): Promise<void> {
  const allowed = new Set<Scope>(role ? scopesOf(role) : []);
  const made = await db.apiToken.findMany({ where: { createdBy: `user:${email}`, revokedAtNs: null } });
  const beyond = made.filter((t) => parseScopes(t.scopes).some((s) => !allowed.has(s)));
  if (!beyond.length) return;
  await db.apiToken.updateMany({ where: { id: { in: beyond.map((t) => t.id) } }, data: { revokedAtNs: nowNs() } });
  for (const t of beyond) forgetToken(t.hash);
}
