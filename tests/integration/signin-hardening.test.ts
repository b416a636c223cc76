// Sign-in hardening (issue 11) against the real server and database: password sign-in
// throttling per account and per address (429 + Retry-After, logged without the password),
// sessions ended by a password change, a role change or removal, and single sign-on through a
// fake OIDC issuer (email_verified, allowed domains, linking by `sub`, removed users).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, request } from "./support/http";
import { startIssuer, type Claims, type FakeIssuer } from "./support/oidcIssuer";
import { uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";
import { passwordSignIn, SESSION_COOKIE, withCookie as cookieRequest } from "./support/session";

type UserRecord = { id: string; email: string; name: string | null; role: string };

let server: TestServer;
let issuer: FakeIssuer;

beforeAll(async () => {
  issuer = await startIssuer();
  server = await startServer({
    SIGHTDESK_OIDC_ISSUER: issuer.url,
    SIGHTDESK_OIDC_CLIENT_ID: issuer.clientId,
    SIGHTDESK_OIDC_CLIENT_SECRET: issuer.clientSecret,
    SIGHTDESK_OIDC_ALLOWED_DOMAINS: "example.com, Corp.Test",
  });
});

afterAll(async () => {
  await server?.stop();
  await issuer?.stop();
});

const email = (label: string, domain = "example.com") => `${uid(label)}@${domain}`.toLowerCase();
/** A client address of its own per test, so that per-address counts do not mix. */
let addressSeq = 0;
const newAddress = () => `203.0.113.${++addressSeq}`;

async function createUser(body: Record<string, unknown>): Promise<UserRecord> {
  const reply = await request<UserRecord>(server, "POST", "/api/users", body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function findUser(address: string): Promise<UserRecord | undefined> {
  const reply = await request<UserRecord[]>(server, "GET", "/api/users");
  return reply.body.find((u) => u.email === address);
}

const signIn = (email: string, password: string, address: string) => passwordSignIn(server, email, password, address);
const withCookie = (cookie: string, route: string, init: RequestInit = {}) => cookieRequest(server, cookie, route, init);

describe("password sign-in throttling", () => {
  it("refuses an account after 5 failures with 429 + Retry-After, even with the right password, and logs it without the password", async () => {
    const address = email("throttled");
    await createUser({ email: address, role: "viewer", password: "right-password-1" });
    const from = newAddress();
    for (let i = 0; i < 5; i++) {
      const failed = await signIn(address, `wrong-password-${i}`, from);
      expect(failed.status).toBe(401);
      expect(failed.cookie).toBeNull();
      expect(String(failed.body.url)).toMatch(/error=CredentialsSignin/);
    }
    const refused = await signIn(address, "wrong-password-5", from);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(800);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(900);
    expect(refused.body.error).toMatch(/^Too many attempts, try again in 15 minutes/);

    // the right password, from another address and in other letter case: still refused
    const right = await signIn(address.toUpperCase(), "right-password-1", newAddress());
    expect(right.status).toBe(429);
    expect(right.retryAfter).toMatch(/^\d+$/);
    expect(right.cookie).toBeNull();

    // another account from the same address is not affected
    const other = email("unaffected");
    await createUser({ email: other, role: "viewer", password: "other-password-1" });
    expect((await signIn(other, "other-password-1", from)).cookie).not.toBeNull();

    const log = server.log();
    expect(log).toMatch(new RegExp(`sign-in throttled: account limit reached for email "${address.replace(/[.+]/g, "\\$&")}" from address "${from.replace(/\./g, "\\.")}"`));
    expect(log).not.toMatch(/wrong-password-5|right-password-1/);
  });

  it("counts each attempt against the account next-auth checks: a repeated email field is refused, a JSON body counts for its email", async () => {
    const victim = email("victim");
    await createUser({ email: victim, role: "viewer", password: "victim-password-1" });
    /** A sign-in with a body of our own making (what a scripted attacker sends). */
    const raw = async (type: string, body: (csrfToken: string) => string) => {
      const csrf = await fetch(`${server.url}/api/auth/csrf`);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const res = await fetch(`${server.url}/api/auth/callback/credentials`, { method: "POST", redirect: "manual", headers: { "content-type": type, cookie, origin: server.url, "x-forwarded-for": newAddress() }, body: body(csrfToken) });
      return { status: res.status, body: await res.text() };
    };
    // a decoy first, the victim last: next-auth checks the last; the throttle counted the first
    const twice = await raw("application/x-www-form-urlencoded", (t) => `email=decoy%40x.test&email=${encodeURIComponent(victim)}&password=guess&csrfToken=${t}&json=true`);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatch(/email: expected one email/);
    // JSON bodies were all counted under ""
    for (let i = 0; i < 5; i++) {
      const failed = await raw("application/json", (t) => JSON.stringify({ email: victim, password: `guess-${i}`, csrfToken: t, json: "true" }));
      expect(failed.status).toBe(401);
    }
    expect((await signIn(victim, "victim-password-1", newAddress())).status).toBe(429);
    // U+0000 in the email, in a form or a JSON body: a failed sign-in (before, 500 on PostgreSQL, whose text cannot hold it)
    expect((await raw("application/x-www-form-urlencoded", (t) => `email=a%00%40x.test&password=guess&csrfToken=${t}&json=true`)).status).toBe(401);
    expect((await raw("application/json", (t) => JSON.stringify({ email: "b\u0000@x.test", password: "guess", csrfToken: t, json: "true" }))).status).toBe(401);
  });

  it("refuses a body over 64 KiB with 413 without reading it, and has no client-log endpoint writing into the server's log", async () => {
    // before, the whole body was read (twice): a declared gigabyte held the request open, a large one filled memory
    const declared = await rawRequest(server.url, "POST /api/auth/callback/credentials HTTP/1.1\r\nHost: sightdesk\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000000\r\nConnection: close\r\n\r\n");
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    const big = await fetch(`${server.url}/api/auth/callback/credentials`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": newAddress() }, body: `email=a%40b.test&password=${"x".repeat(200_000)}` });
    expect([big.status, await big.json()]).toEqual([413, { error: "Request body exceeds 65536 bytes" }]);
    // next-auth's _log wrote anyone's text, newlines and all, into the server's log
    const forged = "[sightdesk] created the first admin: mallory@evil.example";
    const log = await fetch(`${server.url}/api/auth/_log`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ level: "error", code: `x]\n${forged}\n[y`, metadata: {} }) });
    expect(log.status).toBe(404);
    expect(server.log()).not.toContain(forged);
    // a sign-in still works
    const user = email("after-limits");
    await createUser({ email: user, role: "viewer", password: "after-limits-pw-1" });
    expect((await signIn(user, "after-limits-pw-1", newAddress())).cookie).toBeTruthy();
  });

  it("a successful sign-in before the limit clears the account's failures", async () => {
    const address = email("reset");
    await createUser({ email: address, role: "viewer", password: "right-password-2" });
    const from = newAddress();
    for (let i = 0; i < 4; i++) expect((await signIn(address, "wrong-password", from)).cookie).toBeNull();
    expect((await signIn(address, "right-password-2", from)).cookie).not.toBeNull();
    for (let i = 0; i < 4; i++) expect((await signIn(address, "wrong-password", from)).status).toBe(401);
    const again = await signIn(address, "right-password-2", from);
    expect(again.status).toBe(200);
    expect(again.cookie).not.toBeNull();
    // counted from zero again: the fifth failure since the last success is the last one allowed
    for (let i = 0; i < 5; i++) expect((await signIn(address, "wrong-password", from)).status).toBe(401);
    expect((await signIn(address, "right-password-2", from)).status).toBe(429);
  });

  it("refuses an address after 20 failures, whichever accounts they named", async () => {
    const address = email("victim");
    await createUser({ email: address, role: "viewer", password: "right-password-3" });
    const from = newAddress();
    for (let i = 0; i < 20; i++) {
      const failed = await signIn(email(`spray-${i}`), "guess-password", from);
      expect(failed.status, `attempt ${i + 1}`).toBe(401);
    }
    const refused = await signIn(address, "right-password-3", from);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(800);
    // the account itself is not blocked elsewhere
    expect((await signIn(address, "right-password-3", newAddress())).cookie).not.toBeNull();
    expect(server.log()).toMatch(/sign-in throttled: address limit reached/);
  });
});

describe("session versions", () => {
  async function signedIn(role = "viewer"): Promise<{ user: UserRecord; cookie: string }> {
    const address = email("session");
    const user = await createUser({ email: address, role, password: "session-pass-1" });
    const { cookie } = await signIn(address, "session-pass-1", newAddress());
    expect(cookie).not.toBeNull();
    // the cookie works, for the API and for pages (and the user is now in the server's cache)
    expect((await withCookie(cookie!, "/api/interruptions/count")).status).toBe(200);
    expect((await withCookie(cookie!, "/")).status).toBe(200);
    return { user, cookie: cookie! };
  }

  async function expectSignedOut(cookie: string) {
    expect((await withCookie(cookie, "/api/interruptions/count")).status).toBe(401);
    const page = await withCookie(cookie, "/");
    expect(page.status).toBe(307);
    expect(page.headers.get("location")).toMatch(/\/login\?callbackUrl=%2F$/); // back to the page after signing in again
  }

  it("a password change ends the user's sessions; the new password signs in", async () => {
    const { user, cookie } = await signedIn();
    expect((await request(server, "POST", `/api/users/${user.id}`, { password: "session-pass-2" })).status).toBe(200);
    await expectSignedOut(cookie);
    const fresh = await signIn(user.email, "session-pass-2", newAddress());
    expect((await withCookie(fresh.cookie!, "/api/interruptions/count")).status).toBe(200);
  });

  it("a role change (down or up) ends the user's sessions; signing in again gives the new role", async () => {
    const { user, cookie } = await signedIn("responder");
    expect((await request(server, "POST", `/api/users/${user.id}`, { role: "viewer" })).status).toBe(200);
    await expectSignedOut(cookie);
    const viewer = await signIn(user.email, "session-pass-1", newAddress());
    expect((await withCookie(viewer.cookie!, "/api/interruptions/count")).status).toBe(200);
    expect((await withCookie(viewer.cookie!, "/api/users")).status).toBe(403);
    expect((await request(server, "POST", `/api/users/${user.id}`, { role: "admin" })).status).toBe(200);
    await expectSignedOut(viewer.cookie!);
    const fresh = await signIn(user.email, "session-pass-1", newAddress());
    expect((await withCookie(fresh.cookie!, "/api/users")).status).toBe(200);
    // setting the role it already has changes nothing
    expect((await request(server, "POST", `/api/users/${user.id}`, { role: "admin" })).status).toBe(200);
    expect((await withCookie(fresh.cookie!, "/api/users")).status).toBe(200);
    // a name change is not a reason to sign out
    expect((await request(server, "POST", `/api/users/${user.id}`, { name: "Renamed" })).status).toBe(200);
    expect((await withCookie(fresh.cookie!, "/api/interruptions/count")).status).toBe(200);
  });

  it("removing a user ends their sessions", async () => {
    const { user, cookie } = await signedIn();
    expect((await request(server, "DELETE", `/api/users/${user.id}`)).status).toBe(200);
    await expectSignedOut(cookie);
  });
});

describe("API tokens of a user whose role goes down", () => {
  it("a demotion revokes the user's tokens beyond the new role, a removal all of them", async () => {
    const address = email("token-maker");
    await createUser({ email: email("other-admin"), role: "admin", password: "other-pass-1" }); // not the last admin
    const maker = await createUser({ email: address, role: "admin", password: "maker-pass-1" });
    const { cookie } = await signIn(address, "maker-pass-1", newAddress());
    const make = async (scopes: string[]) => {
      const reply = await withCookie(cookie!, "/api/tokens", { method: "POST", body: JSON.stringify({ name: uid("made"), scopes }) });
      expect(reply.status).toBe(201);
      return ((await reply.json()) as { id: string; token: string }).token;
    };
    const admin = await make(["admin"]);
    const ingest = await make(["ingest"]);
    const triage = await make(["read", "triage"]);
    const read = await make(["read"]);
    const bearer = (token: string, route: string, init: RequestInit = {}) =>
      fetch(`${server.url}${route}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
    for (const t of [admin, ingest, triage, read]) expect((await bearer(t, "/api/sources")).status).not.toBe(401);
    // a token made through her admin token is hers too
    const minted = await bearer(admin, "/api/tokens", { method: "POST", body: JSON.stringify({ name: uid("minted"), scopes: ["admin"] }) });
    expect(minted.status).toBe(201);
    const second = (await minted.json()) as { token: string; created_by: string };
    expect(second.created_by).toBe(`user:${address}`);

    expect((await request(server, "POST", `/api/users/${maker.id}`, { role: "responder" })).status).toBe(200);
    // the admin could make herself admin again with an admin token: both are revoked, as is the ingest one
    expect((await bearer(admin, "/api/users")).status).toBe(401);
    expect((await bearer(second.token, "/api/users")).status).toBe(401);
    expect((await bearer(ingest, "/api/interruptions/count")).status).toBe(401);
    expect((await bearer(triage, "/api/interruptions/count")).status).toBe(200);
    expect((await bearer(read, "/api/interruptions/count")).status).toBe(200);

    expect((await request(server, "DELETE", `/api/users/${maker.id}`)).status).toBe(200);
    expect((await bearer(triage, "/api/interruptions/count")).status).toBe(401);
    expect((await bearer(read, "/api/interruptions/count")).status).toBe(401);
  });
});

describe("behind a TLS-terminating proxy (X-Forwarded-Proto: https, no NEXTAUTH_URL)", () => {
  it("signs in with a __Secure- cookie, which the API accepts as the pages do", async () => {
    const address = email("proxied");
    await createUser({ email: address, role: "viewer", password: "proxied-pass-1" });
    const { cookie } = await passwordSignIn(server, address, "proxied-pass-1", newAddress(), true);
    expect(cookie).toMatch(/^__Secure-next-auth\.session-token=/);
    const https = { headers: { "x-forwarded-proto": "https" } };
    expect((await withCookie(cookie!, "/", https)).status).toBe(200);
    expect((await withCookie(cookie!, "/api/interruptions/count", https)).status).toBe(200);
    // the same cookie sent over plain http (no proxy in between) is not the session's
    expect((await withCookie(cookie!, "/api/interruptions/count")).status).toBe(401);
  });
});

describe("single sign-on (fake OIDC issuer)", () => {
  type Sso = { cookie: string | null; location: string };

  /** The browser's round trip: next-auth sign-in → issuer's authorize → next-auth callback. */
  async function sso(claims: Claims): Promise<Sso> {
    issuer.signInAs(claims);
    const jar = new Map<string, string>();
    const keep = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const pair = c.split(";")[0];
        const i = pair.indexOf("=");
        jar.set(pair.slice(0, i), pair.slice(i + 1));
      }
    };
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const csrf = await fetch(`${server.url}/api/auth/csrf`);
    keep(csrf);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const start = await fetch(`${server.url}/api/auth/signin/oidc`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie(), origin: server.url },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${server.url}/`, json: "true" }).toString(),
    });
    keep(start);
    const { url: authorize } = (await start.json()) as { url: string };
    expect(authorize.startsWith(`${issuer.url}/authorize?`), authorize).toBe(true);
    const approved = await fetch(authorize, { redirect: "manual" });
    const callback = approved.headers.get("location")!;
    expect(callback).toMatch(/\/api\/auth\/callback\/oidc\?code=/);
    const done = await fetch(callback, { redirect: "manual", headers: { cookie: cookie() } });
    const session = done.headers.getSetCookie().find((c) => SESSION_COOKIE.test(c));
    return { cookie: session ? session.split(";")[0] : null, location: done.headers.get("location") ?? "" };
  }

  /** Refused: no session; next-auth's error page sends the browser to /login?error=AccessDenied. */
  const refused = async (r: Sso) => {
    expect(r.cookie).toBeNull();
    expect(r.location).toMatch(/\/api\/auth\/error\?error=AccessDenied$/);
    const page = await fetch(r.location, { redirect: "manual" });
    expect(page.headers.get("location")).toMatch(/\/login\?error=AccessDenied$/);
  };

  it("creates a viewer for a verified email of an allowed domain, and signs the same subject in again", async () => {
    const address = email("sso-new", "corp.test");
    const sub = uid("sub");
    const first = await sso({ sub, email: address, email_verified: true, name: "New Person" });
    expect(first.cookie, first.location).not.toBeNull();
    expect((await withCookie(first.cookie!, "/api/interruptions/count")).status).toBe(200);
    const user = await findUser(address);
    expect(user).toMatchObject({ role: "viewer", name: "New Person" });
    // the same subject, whose email changed at the provider: the same user
    const renamed = email("sso-renamed", "corp.test");
    const again = await sso({ sub, email: renamed, email_verified: true });
    expect(again.cookie).not.toBeNull();
    expect(await findUser(renamed)).toBeUndefined();
    expect(await findUser(address)).toMatchObject({ id: user!.id });
  });

  it("refuses an email that is not verified (false, missing or the string 'true')", async () => {
    for (const email_verified of [false, undefined, "true"]) {
      const address = email("sso-unverified");
      await refused(await sso({ sub: uid("sub"), email: address, email_verified }));
      expect(await findUser(address)).toBeUndefined();
    }
    expect(server.log()).toMatch(/single sign-on refused \(email-not-verified\)/);
  });

  it("refuses an email domain not in SIGHTDESK_OIDC_ALLOWED_DOMAINS", async () => {
    for (const address of [email("sso-outside", "elsewhere.org"), email("sso-sub", "sub.example.com")]) {
      await refused(await sso({ sub: uid("sub"), email: address, email_verified: true }));
      expect(await findUser(address)).toBeUndefined();
    }
  });

  it("links an existing password user by verified email once, then only that subject", async () => {
    const address = email("sso-link");
    const user = await createUser({ email: address, role: "responder", password: "link-password-1" });
    // not verified: no link, no sign-in
    await refused(await sso({ sub: "attacker-sub", email: address, email_verified: false }));
    const sub = uid("sub");
    const linked = await sso({ sub, email: address.toUpperCase(), email_verified: true });
    expect(linked.cookie).not.toBeNull();
    expect((await withCookie(linked.cookie!, "/api/interruptions/count")).status).toBe(200);
    expect((await findUser(address))?.id).toBe(user.id);
    // another subject claiming the same (verified) email is refused: the user has a subject
    await refused(await sso({ sub: uid("other-sub"), email: address, email_verified: true }));
    // the linked subject still works, and so does the password
    expect((await sso({ sub, email: address, email_verified: true })).cookie).not.toBeNull();
    expect((await signIn(address, "link-password-1", newAddress())).cookie).not.toBeNull();
  });

  it("does not re-create a user an admin removed, until an admin adds the email again", async () => {
    const address = email("sso-removed");
    const sub = uid("sub");
    const first = await sso({ sub, email: address, email_verified: true });
    expect(first.cookie).not.toBeNull();
    const user = (await findUser(address))!;
    expect((await request(server, "DELETE", `/api/users/${user.id}`)).status).toBe(200);
    expect((await withCookie(first.cookie!, "/api/interruptions/count")).status).toBe(401);

    await refused(await sso({ sub, email: address, email_verified: true }));
    // nor under another email (same subject), nor the same email under another subject
    await refused(await sso({ sub, email: email("sso-removed-alias"), email_verified: true }));
    await refused(await sso({ sub: uid("sub"), email: address, email_verified: true }));
    expect(await findUser(address)).toBeUndefined();
    expect(server.log()).toMatch(/single sign-on refused \(removed\)/);

    // an admin adds the email again: the subject signs in and is linked to the new user
    const readded = await createUser({ email: address, role: "responder", password: "readded-pass-1" });
    const back = await sso({ sub, email: address, email_verified: true });
    expect(back.cookie).not.toBeNull();
    expect((await withCookie(back.cookie!, "/api/interruptions/count")).status).toBe(200);
    expect(await findUser(address)).toMatchObject({ id: readded.id, role: "responder" });
  });
});

describe("with server.trusted_proxies set to none", () => {
  let direct: TestServer;
  beforeAll(async () => {
    direct = await startServer({ SIGHTDESK_SERVER__TRUSTED_PROXIES: "none" });
  });
  afterAll(async () => {
    await direct?.stop();
  });

  it("counts a client under its connection's address, whatever X-Forwarded-For it sends", async () => {
    const victim = email("direct");
    for (let i = 0; i < 5; i++) expect((await passwordSignIn(direct, victim, `guess-${i}`, newAddress())).status).toBe(401);
    expect((await passwordSignIn(direct, victim, "guess-5", newAddress())).status).toBe(429);
    expect(direct.log()).toMatch(new RegExp(`sign-in throttled: account limit reached for email "${victim.replace(/[.+]/g, "\\$&")}" from address "(::ffff:)?127\\.0\\.0\\.1"`));
    expect(direct.log()).not.toMatch(/from address "203\.0\.113\./);
  });
});
