import type { DbTx } from "../db/client";
import { hashToken, parseScopes, type Scope } from "../auth/tokens";
import { nowNs } from "../time";
import { ApiError } from "./errors";

export type Actor = { kind: "token"; id: string; name: string; scopes: Scope[] };

const URL_SECRET_PARAMS = ["token", "access_token", "api_key", "apikey", "key"];
const LAST_USED_RESOLUTION_NS = 60_000_000_000n;

function bearer(req: Request): string {
  const url = new URL(req.url);
  if (URL_SECRET_PARAMS.some((p) => url.searchParams.has(p))) {
    throw new ApiError(401, "Tokens are not accepted in URLs: send Authorization: Bearer <token>");
  }
  const header = req.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError(401, "Missing bearer token: send Authorization: Bearer <token>");
  return match[1];
}

type TokenRow = NonNullable<Awaited<ReturnType<DbTx["apiToken"]["findUnique"]>>>;

// Token rows for a few seconds, so a burst of requests costs one lookup. Revoking clears the
// entry at once (same process); elsewhere a change shows within CACHE_MS.
const CACHE_MS = 5_000;
// Kept on globalThis: Next.js may load this module once per route bundle in one process.
const holder = globalThis as unknown as { sightdeskTokenCache?: Map<string, { row: TokenRow | null; at: number }> };
const cache = (holder.sightdeskTokenCache ??= new Map());

export function forgetToken(hash: string): void {
  cache.delete(hash);
}

async function lookup(db: DbTx, hash: string): Promise<TokenRow | null> {
  const hit = cache.get(hash);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.row;
  const row = await db.apiToken.findUnique({ where: { hash } });
  if (cache.size > 10_000) cache.clear();
  cache.set(hash, { row, at: Date.now() });
  return row;
}

/** Resolves the request's bearer token and checks it carries `scope` (401 / 403 otherwise). */
export async function authenticate(db: DbTx, req: Request, scope: Scope): Promise<Actor> {
  const secret = bearer(req);
  const token = await lookup(db, hashToken(secret));
  const now = nowNs();
  if (!token || token.revokedAtNs !== null || (token.expiresAtNs !== null && token.expiresAtNs <= now)) {
    throw new ApiError(401, "Invalid, expired or revoked token");
  }
  const scopes = parseScopes(token.scopes);
  if (!scopes.includes(scope) && !scopes.includes("admin")) {
    throw new ApiError(403, `This token lacks the '${scope}' scope`);
  }
  if (token.lastUsedAtNs === null || now - token.lastUsedAtNs > LAST_USED_RESOLUTION_NS) {
    token.lastUsedAtNs = now;
    await db.apiToken.update({ where: { id: token.id }, data: { lastUsedAtNs: now } });
  }
  return { kind: "token", id: token.id, name: token.name, scopes };
}
