import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import { readBodyBytes } from "@/lib/api/body";
import { errorResponse } from "@/lib/api/route";
import { authOptions } from "@/lib/auth/nextauth";
import { beginAttempt, clientAddress, finishAttempt } from "@/lib/auth/throttle";
import { db } from "@/lib/db/client";

type Ctx = { params: Promise<{ nextauth: string[] }> };

const nextAuth = (req: NextRequest, ctx: Ctx): Promise<Response> => NextAuth(authOptions())(req, ctx);

const SESSION_COOKIE = /^(__Secure-)?next-auth\.session-token(\.\d+)?=[^;]/;

/**
 * The email a credentials sign-in will check, read from the body as next-auth reads it (JSON
 * when the type says so, else a form), so that the throttle counts the attempt against the
 * account that is tried: "" when there is none (next-auth refuses it without hashing), null when
 * the body names more than one (a form keeps the last, which a first-field read would miss).
 */
async function credentialsEmail(req: NextRequest): Promise<string | null> {
  const type = req.headers.get("content-type") ?? "";
  try {
    if (type.includes("application/json")) {
      const email = ((await req.clone().json()) as { email?: unknown } | null)?.email;
      return email === undefined ? "" : typeof email === "string" ? email : null;
    }
    if (type.includes("application/x-www-form-urlencoded")) {
      const emails = new URLSearchParams(await req.clone().text()).getAll("email");
      return emails.length > 1 ? null : (emails[0] ?? "");
    }
  } catch {
    /* unreadable: next-auth reads nothing either */
  }
  return "";
}

const logValue = (s: string) => JSON.stringify(s.slice(0, 200));

/**
 * Password sign-in (POST /api/auth/callback/credentials) goes through the throttle first: once
 * an account or an address has too many recent failures, the answer is 429 with Retry-After,
 * before next-auth (and the password hash) runs.
 */
async function credentialsCallback(req: NextRequest, ctx: Ctx): Promise<Response> {
  const email = await credentialsEmail(req);
  if (email === null) return Response.json({ error: "email: expected one email" }, { status: 400, headers: { "cache-control": "no-store" } });
  const address = clientAddress(req.headers);
  const attempt = await beginAttempt(db(), { email, address });
  if ("refused" in attempt) {
    console.warn(`sign-in throttled: ${attempt.by} limit reached for email ${logValue(email.trim().toLowerCase())} from address ${logValue(address)}; retry after ${attempt.retryAfterSeconds} s`);
    const minutes = Math.ceil(attempt.retryAfterSeconds / 60);
    const message = `Too many attempts, try again in ${minutes} minute${minutes === 1 ? "" : "s"}`;
    // `url` keeps next-auth's client (signIn with redirect: false) working: it reads the error from it
    const url = new URL("/login", req.nextUrl.origin);
    url.searchParams.set("error", "TooManyAttempts");
    return Response.json(
      { error: message, retry_after: attempt.retryAfterSeconds, url: url.toString() },
      { status: 429, headers: { "retry-after": String(attempt.retryAfterSeconds), "cache-control": "no-store" } },
    );
  }
  const res = await nextAuth(req, ctx);
  const succeeded = res.headers.getSetCookie().some((c) => SESSION_COOKIE.test(c));
  await finishAttempt(db(), attempt, succeeded);
  return res;
}

export async function GET(req: NextRequest, ctx: Ctx) {
  return nextAuth(req, ctx);
}

/** A sign-in, sign-out or CSRF form is a few hundred bytes; anyone may post here, before any check. */
const AUTH_BODY_LIMIT = 64 * 1024;

export async function POST(req: NextRequest, ctx: Ctx) {
  const [action, provider] = (await ctx.params).nextauth ?? [];
  // next-auth's endpoint for its client's logs writes what anyone posts into the server's log
  if (action === "_log") return Response.json({ error: "Not found" }, { status: 404 });
  let body: Buffer;
  try {
    body = await readBodyBytes(req, AUTH_BODY_LIMIT); // next-auth reads the whole body, however large
  } catch (e) {
    return errorResponse(e);
  }
  const read = new NextRequest(req.url, { method: req.method, headers: req.headers, body: new Uint8Array(body) });
  if (action === "callback" && provider === "credentials") return credentialsCallback(read, ctx);
  return nextAuth(read, ctx);
}
