// Identity behind a request's credentials: a bearer token's secret → the token's actor, a
// session cookie → the signed-in user's actor. Rows are cached a few seconds per process, so a
// burst of requests costs one lookup; revoking a token or changing a user forgets the entry at
// once in this process, and every other server process on the database reads the row again
// within CACHE_MS (5 s): an entry is dated when its read *starts*, so a row read just before a
// revocation committed is never trusted longer than that. Reading the credentials off the HTTP
// request (which header, same origin) is lib/api/auth.ts.
import type { NextRequest } from "next/server";
import { getToken } from "next-auth/jwt";
import type { DbTx } from "../db/client";
import { unauthenticated } from "../domain/errors";
import { nowNs } from "../domain/time";
import { userOfActorName, type Actor } from "./actor";
import { scopesOf } from "./roles";
import { parseScopes } from "./scopes";
import { sessionSecret } from "./sessionSecret";
import { hashToken } from "./tokenSecrets";
import { tokenSessionVersion } from "./sessionVersion";

const LAST_USED_RESOLUTION_NS = 60_000_000_000n;

type TokenRow = NonNullable<Awaited<ReturnType<DbTx["apiToken"]["findUnique"]>>>;

/** Cache ages on a clock that never steps back (a wall clock set back would make rows look fresh longer). */
const monotonicMs = () => performance.now();

/** The longest a process trusts a cached row: a revocation elsewhere takes effect here within it. */
export const CACHE_MS = 5_000;
// Kept on globalThis: Next.js may load this module once per route bundle in one process.
const holder = globalThis as unknown as { sightdeskTokenCache?: Map<string, { row: TokenRow | null; at: number }> };
const cache = (holder.sightdeskTokenCache ??= new Map());

/** When each token (by hash) or each maker's tokens (`by <createdBy>`) were last forgotten here: a read begun before must not be cached after it (on globalThis, as the cache). */
const forgottenTokenHolder = globalThis as unknown as { sightdeskForgottenTokens?: Map<string, number> };
const forgottenTokens = (forgottenTokenHolder.sightdeskForgottenTokens ??= new Map());

export function forgetToken(hash: string): void {
  cache.delete(hash);
  remember(hash);
}

/** Forgets every token `createdBy` made (their rights just changed: called again once the change commits). */
export function forgetTokensMadeBy(createdBy: string): void {
  for (const [hash, hit] of cache) if (hit.row?.createdBy === createdBy) cache.delete(hash);
  remember(`by ${createdBy}`);
}

/** Notes when `key` was forgotten; past 10,000 notes, those older than any read still worth refusing go. */
function remember(key: string): void {
  const now = monotonicMs();
  if (forgottenTokens.size >= 10_000) for (const [k, at] of forgottenTokens) if (now - at > CACHE_MS) forgottenTokens.delete(k);
  forgottenTokens.set(key, now);
}

/** Whether a row read from `at` on may be cached: neither it nor its maker was forgotten since. */
const cacheable = (hash: string, row: TokenRow, at: number) =>
  (forgottenTokens.get(hash) ?? -Infinity) < at && (row.createdBy === null || (forgottenTokens.get(`by ${row.createdBy}`) ?? -Infinity) < at);

async function lookup(db: DbTx, hash: string): Promise<TokenRow | null> {
  const hit = cache.get(hash);
  if (hit && monotonicMs() - hit.at < CACHE_MS) return hit.row;
  const at = monotonicMs(); // before the read: the row is at least this fresh
  const row = await db.apiToken.findUnique({ where: { hash } });
  // Only tokens that exist are kept (a secret naming none is any caller's choice: a flood of
  // them must not evict the real ones), and not when revoked here while the read ran.
  if (row && cacheable(hash, row, at)) {
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, { row, at });
  }
  return row;
}

/** The actor of a token secret (401 when unknown, expired or revoked); notes its last use. */
export async function tokenActor(db: DbTx, secret: string): Promise<Actor> {
  const token = await lookup(db, hashToken(secret));
  const now = nowNs();
  if (!token || token.revokedAtNs !== null || (token.expiresAtNs !== null && token.expiresAtNs <= now)) {
    throw unauthenticated("Invalid, expired or revoked token");
  }
  const scopes = parseScopes(token.scopes);
  if (token.lastUsedAtNs === null || now - token.lastUsedAtNs > LAST_USED_RESOLUTION_NS) {
    token.lastUsedAtNs = now;
    // by its hash, and no error when it is gone: the cached row may have been deleted or renamed since
    await db.apiToken.updateMany({ where: { hash: token.hash }, data: { lastUsedAtNs: now } });
  }
  return { kind: "token", id: token.id, name: token.name, scopes, ...(userOfActorName(token.createdBy) !== null ? { actsFor: token.createdBy! } : {}) };
}

type CachedUser = { id: string; email: string; role: string; sessionVersion: number };
const userHolder = globalThis as unknown as { sightdeskUserCache?: Map<string, { user: CachedUser | null; at: number }> };
const userCache = (userHolder.sightdeskUserCache ??= new Map());

/** When each user was last forgotten here: a read begun before must not be cached after it (on globalThis, as the caches). */
const forgottenHolder = globalThis as unknown as { sightdeskForgottenUsers?: Map<string, number> };
const forgottenAt = (forgottenHolder.sightdeskForgottenUsers ??= new Map());

/** Call after changing a user's role, password or existence: this process re-reads it at once. */
export function forgetUser(id: string): void {
  userCache.delete(id);
  const now = monotonicMs();
  for (const [uid, at] of forgottenAt) if (now - at > CACHE_MS) forgottenAt.delete(uid);
  forgottenAt.set(id, now);
}

/** A Cookie header's pairs (values as sent; next-auth decodes its own). */
function cookiesOf(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? "").split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return cookies;
}

/**
 * The user a session cookie's token names while that session is current — the user exists and
 * no password or role change or sign-out moved its session version on since the cookie was
 * issued — else null. Cached like tokens (above).
 */
export async function sessionUser(db: DbTx, token: object | null | undefined): Promise<CachedUser | null> {
  const uid = (token as { uid?: unknown } | null | undefined)?.uid;
  if (typeof uid !== "string") return null;
  const version = tokenSessionVersion(token);
  let hit = userCache.get(uid);
  // a cookie newer than the cached row (signed in again since, maybe through another process): read it again
  if (!hit || monotonicMs() - hit.at >= CACHE_MS || (hit.user !== null && version > hit.user.sessionVersion)) {
    const at = monotonicMs();
    const user = await db.user.findUnique({ where: { id: uid }, select: { id: true, email: true, role: true, sessionVersion: true } });
    hit = { user, at };
    // a change committed while this read ran (forgotten meanwhile) may be missing from it: not kept
    if ((forgottenAt.get(uid) ?? -Infinity) < at) {
      if (userCache.size > 10_000) userCache.clear();
      userCache.set(uid, hit);
    }
  }
  return hit.user && hit.user.sessionVersion === version ? hit.user : null;
}

/**
 * Whether the session cookie is the `__Secure-` one, decided as next-auth's sign-in decides it
 * when it sets the cookie: by NEXTAUTH_URL's scheme, else (the host trusted, nextauth.ts) by the
 * scheme a TLS-terminating proxy forwards. `getToken` alone looks at NEXTAUTH_URL only, and
 * behind an https proxy without it read a cookie name the browser never had.
 */
function secureSessionCookie(headers: Headers): boolean {
  const configured = process.env.NEXTAUTH_URL;
  if (configured) return configured.startsWith("https://");
  return (headers.get("x-forwarded-proto") ?? "http") !== "http";
}

/** The signed-in user of the request's session cookie, or null (none, or no longer valid). */
export async function sessionActor(db: DbTx, req: Request): Promise<Actor | null> {
  // next-auth reads `req.cookies`: a NextRequest has them, a plain Request (the ingest routes
  // served beside Next, lib/server/directRoutes.ts) is given them from its header
  const withCookies = "cookies" in req ? req : { headers: req.headers, cookies: cookiesOf(req.headers.get("cookie")) };
  const token = await getToken({ req: withCookies as unknown as NextRequest, secret: sessionSecret(), secureCookie: secureSessionCookie(req.headers) });
  const user = await sessionUser(db, token);
  return user && { kind: "user", id: user.id, name: user.email, scopes: scopesOf(user.role), role: user.role };
}
