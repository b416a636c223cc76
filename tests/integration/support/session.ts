// Signing in as a browser does (next-auth's credentials flow) and calling the API with the
// session cookie, for the suites about users, roles and sign-in.
import type { TestServer } from "./server";

export const SESSION_COOKIE = /^(__Secure-)?next-auth\.session-token=[^;]+/;

export type SignInAttempt = { status: number; retryAfter: string | null; cookie: string | null; body: Record<string, unknown> };

/**
 * One password sign-in through the credentials callback (from `address`, as X-Forwarded-For,
 * when given; through a TLS-terminating proxy, as X-Forwarded-Proto: https, with `https`).
 */
export async function passwordSignIn(server: TestServer, email: string, password: string, address?: string, https = false): Promise<SignInAttempt> {
  const proxied: Record<string, string> = https ? { "x-forwarded-proto": "https" } : {};
  const csrf = await fetch(`${server.url}/api/auth/csrf`, { headers: proxied });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookies = csrf.headers.getSetCookie().map((c) => c.split(";")[0]);
  const origin = https ? server.url.replace(/^http:/, "https:") : server.url;
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", cookie: cookies.join("; "), origin, ...proxied };
  if (address) headers["x-forwarded-for"] = `${address}, 10.0.0.1`;
  const res = await fetch(`${server.url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers,
    body: new URLSearchParams({ csrfToken, email, password, json: "true", callbackUrl: `${server.url}/` }).toString(),
  });
  const session = res.headers.getSetCookie().find((c) => SESSION_COOKIE.test(c));
  return { status: res.status, retryAfter: res.headers.get("retry-after"), cookie: session ? session.split(";")[0] : null, body: (await res.json()) as Record<string, unknown> };
}

/** A request with a session cookie instead of a token (writes carry this origin, like a browser). */
export function withCookie(server: TestServer, cookie: string, route: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("cookie", cookie);
  if (init.method && init.method !== "GET") headers.set("origin", server.url);
  if (init.body) headers.set("content-type", "application/json");
  return fetch(`${server.url}${route}`, { redirect: "manual", ...init, headers });
}
