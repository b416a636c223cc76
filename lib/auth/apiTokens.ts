// API tokens (SPEC §5.3): random secrets shown once, stored as SHA-256, with scopes, an
// optional expiry, last use and revocation.
import crypto from "node:crypto";
import { conflict, notFound } from "../domain/errors";
import type { DbTx } from "../db/client";
import type { ApiToken } from "../db/generated/client";
import { nowNs } from "../domain/time";
import { isDashboardTokenId } from "./dashboardToken";
import { forgetToken } from "./identity";
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
