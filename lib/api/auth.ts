// Request authentication, the HTTP part: where the credentials are (the Authorization header,
// else the session cookie), refusing secrets in URLs, and the Origin rule for cookie writes.
// Who the credentials name, and what they may do, is lib/auth (identity.ts, actor.ts).
import { requireScope, type Actor } from "../auth/actor";
import { sessionActor, tokenActor } from "../auth/identity";
import type { Scope } from "../auth/scopes";
import type { DbTx } from "../db/client";
import { ApiError } from "./errors";

const URL_SECRET_PARAMS = ["token", "access_token", "api_key", "apikey", "key"];

function bearer(header: string | null, urlSecret: boolean): string {
  if (urlSecret) throw new ApiError(401, "Tokens are not accepted in URLs: send Authorization: Bearer <token>");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) throw new ApiError(401, "Missing bearer token: send Authorization: Bearer <token>");
  return match[1];
}

/** Whether the query string names a secret (most requests have no query string: nothing to parse). */
function hasUrlSecret(req: Request): boolean {
  if (!req.url.includes("?")) return false;
  const url = new URL(req.url);
  return URL_SECRET_PARAMS.some((p) => url.searchParams.has(p));
}

/**
 * Who is calling: a bearer token, or else a signed-in user's session cookie. Checks `scope`
 * (401 / 403 otherwise). Cookie-authenticated writes must come from this origin (CSRF).
 */
export async function authenticate(db: DbTx, req: Request, scope: Scope): Promise<Actor> {
  const header = req.headers.get("authorization");
  const urlSecret = hasUrlSecret(req);
  if (header !== null || urlSecret) return requireScope(await tokenActor(db, bearer(header, urlSecret)), scope);
  const user = await sessionActor(db, req);
  if (!user) throw new ApiError(401, "Sign in, or send Authorization: Bearer <token>");
  if (req.method !== "GET" && req.method !== "HEAD" && !req.headers.get("origin")) {
    throw new ApiError(403, "Cross-origin request refused: cookie-authenticated writes need an Origin header");
  }
  return requireScope(user, scope);
}
