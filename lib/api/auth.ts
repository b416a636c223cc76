import type { NextRequest } from "next/server";
import { getToken } from "next-auth/jwt";
import { scopesOf } from "../auth/roles";
import { sessionSecret } from "../auth/sessionSecret";
import { tokenSessionVersion } from "../auth/users";
import type { DbTx } from "../db/client";
import { hashToken, parseScopes, type Scope } from "../auth/tokens";
import { nowNs } from "../domain/time";
import { ApiError } from "./errors";

export type Actor = { kind: "token" | "user"; id: string; name: string; scopes: Scope[]; role?: string };

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

function requireScope(actor: Actor, scope: Scope): Actor {
  if (!actor.scopes.includes(scope) && !actor.scopes.includes("admin")) {
    throw new ApiError(403, actor.kind === "user" ? `Your role (${actor.role}) does not allow this` : `This token lacks the '${scope}' scope`);
  }
  return actor;
}

/**
 * Who is calling: a bearer token, or else a signed-in user's session cookie. Checks `scope`
 * (401 / 403 otherwise). Cookie-authenticated writes must come from this origin (CSRF).
 */
export async function authenticate(db: DbTx, req: Request, scope: Scope): Promise<Actor> {
  if (req.headers.has("authorization") || hasUrlSecret(req)) return requireScope(await tokenActor(db, req), scope);
  const user = await sessionActor(db, req);
  if (!user) throw new ApiError(401, "Sign in, or send Authorization: Bearer <token>");
  if (req.method !== "GET" && req.method !== "HEAD" && !req.headers.get("origin")) {
    throw new ApiError(403, "Cross-origin request refused: cookie-authenticated writes need an Origin header");
  }
  return requireScope(user, scope);
}

const USER_CACHE_MS = 5_000;
type CachedUser = { id: string; email: string; role: string; sessionVersion: number };
const userHolder = globalThis as unknown as { sightdeskUserCache?: Map<string, { user: CachedUser | null; at: number }> };
const userCache = (userHolder.sightdeskUserCache ??= new Map());

/** Call after changing a user's role, password or existence: this process re-reads it at once. */
export function forgetUser(id: string): void {
  userCache.delete(id);
}

async function sessionActor(db: DbTx, req: Request): Promise<Actor | null> {
  const jwt = await getToken({ req: req as unknown as NextRequest, secret: sessionSecret() });
  const uid = typeof jwt?.uid === "string" ? jwt.uid : null;
  if (!uid) return null;
  let hit = userCache.get(uid);
  if (!hit || Date.now() - hit.at > USER_CACHE_MS) {
    const user = await db.user.findUnique({ where: { id: uid }, select: { id: true, email: true, role: true, sessionVersion: true } });
    if (userCache.size > 10_000) userCache.clear();
    userCache.set(uid, (hit = { user, at: Date.now() }));
  }
  // a password or role change since this cookie was issued ends it: signed out
  if (!hit.user || hit.user.sessionVersion !== tokenSessionVersion(jwt)) return null;
  return { kind: "user", id: hit.user.id, name: hit.user.email, scopes: scopesOf(hit.user.role), role: hit.user.role };
}

function hasUrlSecret(req: Request): boolean {
  const url = new URL(req.url);
  return URL_SECRET_PARAMS.some((p) => url.searchParams.has(p));
}

async function tokenActor(db: DbTx, req: Request): Promise<Actor> {
  const secret = bearer(req);
  const token = await lookup(db, hashToken(secret));
  const now = nowNs();
  if (!token || token.revokedAtNs !== null || (token.expiresAtNs !== null && token.expiresAtNs <= now)) {
    throw new ApiError(401, "Invalid, expired or revoked token");
  }
  const scopes = parseScopes(token.scopes);
  if (token.lastUsedAtNs === null || now - token.lastUsedAtNs > LAST_USED_RESOLUTION_NS) {
    token.lastUsedAtNs = now;
    await db.apiToken.update({ where: { id: token.id }, data: { lastUsedAtNs: now } });
  }
  return { kind: "token", id: token.id, name: token.name, scopes };
}
