// Dashboard users (SPEC §5.3) against the real server: the admin-only users API (list without
// hashes, create, role changes, password reset, delete, last-admin and duplicate rules, 400s
// naming the field), real sign-in with the stored password, role changes taking effect at once,
// and `sightdesk user create` writing to the server's database before and while it runs.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uid } from "./support/payloads";
import { createToken, expectError, request, type CreatedToken } from "./support/http";
import { startServer, type TestServer } from "./support/server";
import { passwordSignIn, withCookie as cookieRequest } from "./support/session";

const ROOT = path.resolve(__dirname, "../..");
const BIN = path.join(ROOT, "bin/sightdesk.mjs");
const USER_KEYS = ["created_at_ns", "email", "id", "name", "role"];

type UserRecord = { id: string; email: string; name: string | null; role: string; created_at_ns: string };

let server: TestServer;
let readToken: CreatedToken;
let triageToken: CreatedToken;
let cwd: string;

beforeAll(async () => {
  server = await startServer();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-users-"));
  readToken = await createToken(server, uid("users-read"), ["read"]);
  triageToken = await createToken(server, uid("users-triage"), ["read", "triage", "ingest"]);
});

afterAll(async () => {
  await server?.stop();
  if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
});

const get = <T>(route: string, token?: string | null) => request<T>(server, "GET", route, undefined, token);
const post = <T>(route: string, body?: unknown, token?: string | null) => request<T>(server, "POST", route, body, token);
const del = <T>(route: string, token?: string | null) => request<T>(server, "DELETE", route, undefined, token);

const email = (label: string) => `${uid(label)}@example.com`.toLowerCase();

async function createUser(body: Record<string, unknown>): Promise<UserRecord> {
  const reply = await post<UserRecord>("/api/users", body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function users(): Promise<UserRecord[]> {
  const reply = await get<UserRecord[]>("/api/users");
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Signs in through next-auth's credentials flow; the session cookie, or null when refused. */
const signIn = async (email: string, password: string) => (await passwordSignIn(server, email, password)).cookie;
const withCookie = (cookie: string, route: string, init: RequestInit = {}) => cookieRequest(server, cookie, route, { redirect: "follow", ...init });

type Run = { code: number; stdout: string; stderr: string };

/** `sightdesk user create …` on the server's data (no server URL or token involved). */
function cli(args: string[], env: Record<string, string> = {}, data: Record<string, string> = server.env): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const k of Object.keys(base)) if (k.startsWith("SIGHTDESK_")) delete base[k];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, "user", "create", ...args],
      { cwd, env: { ...base, ...data, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe("users API", () => {
  it("creates a user (email normalized) and lists users without password hashes", async () => {
    const address = email("alice");
    const created = await createUser({ email: `  ${address.toUpperCase()} `, name: "Alice <b>Admin</b>", role: "admin", password: "correct-horse-1" });
    expect(Object.keys(created).sort()).toEqual(USER_KEYS);
    expect(created).toMatchObject({ email: address, name: "Alice <b>Admin</b>", role: "admin" });
    expect(created.created_at_ns).toMatch(/^\d{19}$/);

    const reply = await get<UserRecord[]>("/api/users");
    expect(reply.status).toBe(200);
    expect(reply.body.find((u) => u.id === created.id)).toEqual(created);
    for (const u of reply.body) expect(Object.keys(u).sort()).toEqual(USER_KEYS);
    expect(reply.text).not.toMatch(/scrypt|password|hash/i);
  });

  it("refuses a duplicate email, whatever its case, with 409", async () => {
    const address = email("dup");
    await createUser({ email: address, role: "viewer", password: "password-123" });
    expectError(await post("/api/users", { email: address.toUpperCase(), role: "responder", password: "password-456" }), 409, /exists/);
    expect((await users()).filter((u) => u.email === address)).toHaveLength(1);
  });

  it("answers 400 naming the field for invalid bodies", async () => {
    const ok = { email: email("valid"), role: "viewer", password: "password-123" };
    expectError(await post("/api/users", { ...ok, email: undefined }), 400, /^email:/);
    expectError(await post("/api/users", { ...ok, email: "not-an-email" }), 400, /^email: not a valid email/);
    expectError(await post("/api/users", { ...ok, role: "superuser" }), 400, /^role: expected one of viewer, responder, admin/);
    expectError(await post("/api/users", { ...ok, role: undefined }), 400, /^role:/);
    expectError(await post("/api/users", { ...ok, password: "short" }), 400, /^password: at least 8 characters/);
    expectError(await post("/api/users", { ...ok, password: undefined }), 400, /^password:/);
    expectError(await post("/api/users", { ...ok, name: "x".repeat(101) }), 400, /^name:/);
    expectError(await post("/api/users", "{not json"), 400, /Malformed JSON/);
    expectError(await post("/api/users", ""), 400, /empty/);
    expect((await users()).some((u) => u.email === ok.email)).toBe(false);
  });

  it("changes a role, a name and a password; 404 for an unknown user; 400 for an empty change", async () => {
    const u = await createUser({ email: email("bob"), role: "viewer", password: "password-123" });
    const promoted = await post<UserRecord>(`/api/users/${u.id}`, { role: "responder" });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body).toMatchObject({ id: u.id, role: "responder", email: u.email });
    const renamed = await post<UserRecord>(`/api/users/${u.id}`, { name: "Bob" });
    expect(renamed.body).toMatchObject({ name: "Bob", role: "responder" });
    expect((await users()).find((x) => x.id === u.id)).toMatchObject({ role: "responder", name: "Bob" });

    expectError(await post(`/api/users/${u.id}`, { role: "root" }), 400, /^role:/);
    expectError(await post(`/api/users/${u.id}`, {}), 400, /role, name or password/);
    expectError(await post(`/api/users/${u.id}`, { password: "short" }), 400, /^password:/);
    expectError(await post("/api/users/no-such-user", { role: "admin" }), 404, "User not found");
    expectError(await del("/api/users/no-such-user"), 404, "User not found");
    expectError(await del("/api/users/a%00b"), 404, "User not found"); // U+0000 in a path: before, 500 on PostgreSQL
  });

  it("never leaves the server without an admin (409)", async () => {
    const admins = (await users()).filter((u) => u.role === "admin");
    // demote every admin but one, then try the last
    const keep = admins[0] ?? (await createUser({ email: email("keep"), role: "admin", password: "password-123" }));
    for (const a of admins.slice(1)) expect((await post(`/api/users/${a.id}`, { role: "viewer" })).status).toBe(200);
    expectError(await post(`/api/users/${keep.id}`, { role: "viewer" }), 409, /last admin/);
    expectError(await del(`/api/users/${keep.id}`), 409, /last admin/);
    expect((await users()).find((u) => u.id === keep.id)?.role).toBe("admin");
    // with a second admin, the first may go
    const second = await createUser({ email: email("second-admin"), role: "admin", password: "password-123" });
    expect((await post(`/api/users/${keep.id}`, { role: "responder" })).status).toBe(200);
    expect((await post(`/api/users/${keep.id}`, { role: "admin" })).status).toBe(200);
    expect((await del(`/api/users/${second.id}`)).status).toBe(200);
  });

  it("deletes a user", async () => {
    const u = await createUser({ email: email("gone"), role: "viewer", password: "password-123" });
    const reply = await del<UserRecord>(`/api/users/${u.id}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(u);
    expect((await users()).some((x) => x.id === u.id)).toBe(false);
    expectError(await del(`/api/users/${u.id}`), 404);
  });

  it("needs the admin scope: 401 without a token, 403 for read and triage tokens", async () => {
    const target = await createUser({ email: email("target"), role: "viewer", password: "password-123" });
    for (const token of [readToken.token, triageToken.token]) {
      expectError(await get("/api/users", token), 403, /admin/);
      expectError(await post("/api/users", { email: email("nope"), role: "admin", password: "password-123" }, token), 403, /admin/);
      expectError(await post(`/api/users/${target.id}`, { role: "admin" }, token), 403);
      expectError(await del(`/api/users/${target.id}`, token), 403);
    }
    expectError(await get("/api/users", null), 401);
    expectError(await post("/api/users", { email: email("anon"), role: "admin", password: "password-123" }, null), 401);
    expect((await users()).find((u) => u.id === target.id)?.role).toBe("viewer");
  });

  it("is described in the OpenAPI document", async () => {
    const doc = (await get<{ paths: Record<string, Record<string, { "x-required-scope"?: string }>> }>("/api/openapi.json")).body;
    expect(Object.keys(doc.paths["/api/users"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/users/{id}"]).sort()).toEqual(["delete", "post"]);
    expect(doc.paths["/api/users"].post["x-required-scope"]).toBe("admin");
  });
});

describe("sign-in and roles", () => {
  it("signs in with the stored password, refuses a wrong one, and a role change ends the session at once", async () => {
    const address = email("carol");
    const u = await createUser({ email: address, role: "viewer", password: "viewer-pass-123" });
    expect(await signIn(address, "wrong-password")).toBeNull();
    const cookie = await signIn(address.toUpperCase(), "viewer-pass-123");
    expect(cookie).not.toBeNull();

    // a viewer reads, but may not manage users (API refuses, whatever the UI shows)
    expect((await withCookie(cookie!, "/api/interruptions/count")).status).toBe(200);
    expect((await withCookie(cookie!, "/api/users")).status).toBe(403);
    const attempt = await withCookie(cookie!, "/api/users", { method: "POST", body: JSON.stringify({ email: email("sneaky"), role: "admin", password: "password-123" }) });
    expect(attempt.status).toBe(403);
    expect((await withCookie(cookie!, "/api/tokens", { method: "POST", body: JSON.stringify({ name: "sneaky", scopes: ["admin"] }) })).status).toBe(403);

    // promoted: a role change ends the session at once (no wait for the user cache); signed in
    // again, the user may list users
    expect((await post(`/api/users/${u.id}`, { role: "admin" })).status).toBe(200);
    expect((await withCookie(cookie!, "/api/users")).status).toBe(401);
    const admin = await signIn(address, "viewer-pass-123");
    expect((await withCookie(admin!, "/api/users")).status).toBe(200);
    // an admin may not delete themselves
    const self = await withCookie(admin!, `/api/users/${u.id}`, { method: "DELETE" });
    expect(self.status).toBe(409);
    expect(((await self.json()) as { error: string }).error).toMatch(/your own account/);

    // demoted again: that session ends too; the next one is a viewer's; deleted: it stops working
    expect((await post(`/api/users/${u.id}`, { role: "viewer" })).status).toBe(200);
    expect((await withCookie(admin!, "/api/users")).status).toBe(401);
    const viewer = await signIn(address, "viewer-pass-123");
    expect((await withCookie(viewer!, "/api/users")).status).toBe(403);
    expect((await del(`/api/users/${u.id}`)).status).toBe(200);
    expect((await withCookie(viewer!, "/api/interruptions/count")).status).toBe(401);
  });

  it("resets a password: the old one stops working, the new one signs in", async () => {
    const address = email("dave");
    const u = await createUser({ email: address, role: "responder", password: "old-password-1" });
    expect(await signIn(address, "old-password-1")).not.toBeNull();
    expect((await post(`/api/users/${u.id}`, { password: "new-password-2" })).status).toBe(200);
    expect(await signIn(address, "old-password-1")).toBeNull();
    expect(await signIn(address, "new-password-2")).not.toBeNull();
  });
});

// each run starts the CLI (tsx) and opens the database: slower than an API call on a busy machine
describe("sightdesk user create", { timeout: 120_000 }, () => {
  it("adds a user to the server's database; the user then signs in and appears in the API", async () => {
    const address = email("cli-admin");
    const r = await cli(["--email", address, "--role", "admin", "--name", "CLI Admin"], { SIGHTDESK_USER_PASSWORD: "cli-password-1" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Created admin ${address.replace(/[.+]/g, "\\$&")} \\(CLI Admin\\), id [0-9a-f-]{36}\\.`));
    expect(r.stdout).not.toContain("cli-password-1");
    const listed = (await users()).find((u) => u.email === address);
    expect(listed).toMatchObject({ role: "admin", name: "CLI Admin" });
    const cookie = await signIn(address, "cli-password-1");
    expect(cookie).not.toBeNull();
    expect((await withCookie(cookie!, "/api/users")).status).toBe(200);
  });

  it("takes --password and prints JSON with --json", async () => {
    const address = email("cli-json");
    const r = await cli(["--email", address, "--role", "responder", "--password", "cli-password-2", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as UserRecord;
    expect(Object.keys(body).sort()).toEqual(USER_KEYS);
    expect(body).toMatchObject({ email: address, role: "responder", name: null });
    expect((await users()).find((u) => u.email === address)?.id).toBe(body.id);
  });

  it("reports a duplicate email (exit 1) and keeps one user", async () => {
    const address = email("cli-dup");
    expect((await cli(["--email", address, "--role", "viewer", "--password", "cli-password-3"])).code).toBe(0);
    const dup = await cli(["--email", address.toUpperCase(), "--role", "admin", "--password", "cli-password-3"]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/^error: A user with email .* exists/);
    const same = (await users()).filter((u) => u.email === address);
    expect(same).toHaveLength(1);
    expect(same[0].role).toBe("viewer");
  });

  it("reports a short or missing password and bad options (exit 2), creating nobody", async () => {
    const short = await cli(["--email", email("cli-short"), "--role", "viewer", "--password", "short"]);
    expect(short.code).toBe(2);
    // a refused value: no "(add --help for usage)", which would not say more
    expect(short.stderr).toBe("error: The password needs at least 8 characters\n");

    // no --password, no SIGHTDESK_USER_PASSWORD, stdin not a terminal
    const none = await cli(["--email", email("cli-none"), "--role", "viewer"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No password: pass --password, set SIGHTDESK_USER_PASSWORD/);

    const role = await cli(["--email", email("cli-role"), "--role", "owner", "--password", "cli-password-3"]);
    expect(role.code).toBe(2);
    expect(role.stderr).toMatch(/Allowed choices are viewer, responder, admin/);
    const badEmail = await cli(["--email", "not-an-email", "--role", "viewer", "--password", "cli-password-3"]);
    expect(badEmail.code).toBe(2);
    expect(badEmail.stderr).toMatch(/expected an email address.*\n\(add --help for usage\)\n$/);
    const missing = await cli(["--role", "viewer", "--password", "cli-password-3"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--email/);

    const emails = (await users()).map((u) => u.email);
    expect(emails.some((e) => /cli-(short|none|role)/.test(e))).toBe(false);
  });

  it("creates the first admin in a data directory no server has used yet", async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-users-fresh-"));
    try {
      const r = await cli(["--email", "first@example.com", "--role", "admin"], { SIGHTDESK_USER_PASSWORD: "first-admin-1" }, { SIGHTDESK_DATA_DIR: fresh, DATABASE_URL: "" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("Created admin first@example.com");
      expect(fs.existsSync(path.join(fresh, "sightdesk.db"))).toBe(true);
      const again = await cli(["--email", "first@example.com", "--role", "admin"], { SIGHTDESK_USER_PASSWORD: "first-admin-1" }, { SIGHTDESK_DATA_DIR: fresh, DATABASE_URL: "" });
      expect(again.code).toBe(1);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});
