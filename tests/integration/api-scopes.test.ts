// API tokens and scopes (SPEC §5.3) against the real server: minting, listing without secrets,
// last use, revocation, expiry, tokens in URLs, and a route × credential matrix whose expected
// answers come from the contracts' `scope` and authenticate()'s rule (admin implies every scope).
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contracts } from "@/lib/api/contract";
import "@/lib/api/contracts";
import { call, uid } from "./support/payloads";
import {
  createToken,
  expectError,
  failingCall,
  ingestCalls,
  interruptionOfCall,
  request,
  sleep,
  type CreatedToken,
  type InterruptionRecord,
  type Reply,
} from "./support/http";
import { databaseBytes, startServer, type TestServer } from "./support/server";

let server: TestServer;

type TokenRecord = Omit<CreatedToken, "token">;
const TOKEN_KEYS = ["created_at_ns", "created_by", "expires_at_ns", "id", "last_used_at_ns", "name", "revoked_at_ns", "scopes"];

type TokenLabel = "read" | "triage" | "ingest" | "admin" | "revoked" | "expired";
const tokens = {} as Record<TokenLabel, CreatedToken>;
let expiresAtMs = 0;

beforeAll(async () => {
  server = await startServer();
  // the expiring token first, so that its expiry has passed by the time the matrix runs
  expiresAtMs = Date.now() + 2000;
  tokens.expired = await createToken(server, uid("expiring"), ["admin"], (BigInt(expiresAtMs) * 1_000_000n).toString());
  for (const scope of ["read", "triage", "ingest", "admin"] as const) tokens[scope] = await createToken(server, uid(`${scope}-token`), [scope]);
  tokens.revoked = await createToken(server, uid("revoked"), ["admin"]);
});
afterAll(async () => {
  await server?.stop();
});

const get = <T>(route: string, token?: string | null) => request<T>(server, "GET", route, undefined, token);
const post = <T>(route: string, body?: unknown, token?: string | null) => request<T>(server, "POST", route, body, token);

async function listTokens(): Promise<TokenRecord[]> {
  const reply = await get<TokenRecord[]>("/api/tokens");
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function freshInterruption(): Promise<InterruptionRecord> {
  const sessionId = uid("scoped");
  const c = failingCall("llm_error", { session_id: sessionId });
  await ingestCalls(server, [c]);
  return interruptionOfCall(server, sessionId, c.call_id);
}

async function statusOf(id: string): Promise<string> {
  return (await get<InterruptionRecord>(`/api/interruptions/${id}`)).body.status;
}

describe("tokens", () => {
  it("POST /api/tokens → 201 with the secret, shown only there", async () => {
    const name = uid("ci-reader");
    const reply = await post<CreatedToken>("/api/tokens", { name, scopes: ["read", "triage"] });
    expect(reply.status, reply.text).toBe(201);
    const created = reply.body;
    expect(Object.keys(created).sort()).toEqual([...TOKEN_KEYS, "token"].sort());
    expect(created).toMatchObject({ name, scopes: ["read", "triage"], created_by: "token:dashboard token file", expires_at_ns: null, last_used_at_ns: null, revoked_at_ns: null });
    expect(created.token).toMatch(/^\S{32,}$/);
    expect(created.created_at_ns).toMatch(/^\d{19}$/);

    const listed = await get<TokenRecord[]>("/api/tokens");
    const mine = listed.body.find((t) => t.id === created.id)!;
    expect(mine).toBeDefined();
    expect(Object.keys(mine).sort()).toEqual(TOKEN_KEYS);
    for (const t of listed.body) expect(Object.keys(t).sort()).toEqual(TOKEN_KEYS);
    const hash = crypto.createHash("sha256").update(created.token).digest("hex");
    expect(listed.text).not.toContain(created.token);
    expect(listed.text).not.toContain(hash);
    expect(listed.text).not.toMatch(/"(token|hash|secret)"/);
    expect(listed.text).not.toContain(server.token);
    // stored hashed: the secret never reaches the database file
    expect((await databaseBytes(server)).includes(created.token)).toBe(false);
  });

  it("sets last_used_at_ns once a token is used", async () => {
    const created = await createToken(server, uid("usage"), ["read"]);
    expect((await listTokens()).find((t) => t.id === created.id)!.last_used_at_ns).toBeNull();
    const before = BigInt(Date.now()) * 1_000_000n;
    expect((await get("/api/interruptions/count", created.token)).status).toBe(200);
    const used = (await listTokens()).find((t) => t.id === created.id)!;
    expect(used.last_used_at_ns).toMatch(/^\d{19}$/);
    expect(BigInt(used.last_used_at_ns!) >= before - 1_000_000_000n).toBe(true);
  });

  it("revokes: DELETE answers the revoked record, then the token gets 401", async () => {
    const victim = await createToken(server, uid("victim"), ["read"]);
    expect((await get("/api/interruptions/count", victim.token)).status).toBe(200);
    const reply = await request<TokenRecord>(server, "DELETE", `/api/tokens/${victim.id}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.id).toBe(victim.id);
    expect(reply.body.revoked_at_ns).toMatch(/^\d{19}$/);
    expect(reply.text).not.toContain(victim.token);
    expectError(await get("/api/interruptions/count", victim.token), 401);
    expect((await listTokens()).find((t) => t.id === victim.id)!.revoked_at_ns).toBe(reply.body.revoked_at_ns);
    // revoking again changes nothing
    const again = await request<TokenRecord>(server, "DELETE", `/api/tokens/${victim.id}`);
    expect(again.status).toBe(200);
    expect(again.body.revoked_at_ns).toBe(reply.body.revoked_at_ns);
    expectError(await request(server, "DELETE", `/api/tokens/${uid("no-such-token")}`), 404);
  });

  it("rejects bad token requests with 400 naming the field", async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: "x", scopes: ["superuser"] }, /scopes/],
      [{ name: "x", scopes: [] }, /scopes/],
      [{ name: "x" }, /scopes/],
      [{ name: "", scopes: ["read"] }, /name/],
      [{ name: "   ", scopes: ["read"] }, /name/],
      [{ scopes: ["read"] }, /name/],
      [{ name: "x", scopes: ["read"], expires_at: (BigInt(Date.now() - 60_000) * 1_000_000n).toString() }, /expires_at/],
      [{ name: "x", scopes: ["read"], expires_at: new Date(Date.now() - 60_000).toISOString() }, /expires_at/],
      [{ name: "x", scopes: ["read"], expires_at: "next tuesday" }, /expires_at/],
      // past what a 64-bit column of nanoseconds holds (the year 2262): refused, not a database error
      [{ name: "x", scopes: ["read"], expires_at: "99999999999999999999" }, /expires_at/],
      [{ name: "x", scopes: ["read"], expires_at: "3000-01-01T00:00:00Z" }, /expires_at/],
    ];
    const before = (await listTokens()).length;
    for (const [body, field] of cases) expectError(await post("/api/tokens", body), 400, field);
    expect((await listTokens()).length).toBe(before);
  });

  it("accepts an expiry of nanoseconds as a bare JSON integer (19 digits), to within a microsecond", async () => {
    const at = (BigInt(Date.now()) + 3_600_000n) * 1_000_000n + 123_456n;
    const reply = await request<TokenRecord>(server, "POST", "/api/tokens", `{"name":"${uid("bare")}","scopes":["read"],"expires_at":${at}}`);
    expect(reply.status, reply.text).toBe(201);
    const off = BigInt(reply.body.expires_at_ns!) - at;
    expect(off < 1000n && off > -1000n, `${reply.body.expires_at_ns} for ${at}`).toBe(true);
  });

  it("accepts an ISO 8601 expiry in the future", async () => {
    const at = new Date(Date.now() + 3_600_000);
    const created = await createToken(server, uid("iso"), ["read"], at.toISOString());
    expect(BigInt(created.expires_at_ns!)).toBe(BigInt(at.getTime()) * 1_000_000n);
    expect((await get("/api/interruptions/count", created.token)).status).toBe(200);
  });

  it("refuses tokens in the URL, even a valid one", async () => {
    for (const param of ["token", "access_token", "api_key"]) {
      expectError(await get(`/api/interruptions/count?${param}=${server.token}`, null), 401);
      // and with a good header as well: a URL secret is refused outright
      expectError(await get(`/api/interruptions/count?${param}=${server.token}`), 401);
    }
  });

  it("401 for a missing, malformed or unknown bearer token", async () => {
    expectError(await get("/api/interruptions/count", null), 401);
    expectError(await get("/api/interruptions/count", "0".repeat(64)), 401);
    const res = await server.api("/api/interruptions/count", { token: null, headers: { authorization: `Basic ${server.token}` } });
    expect(res.status).toBe(401);
  });

  it("the token file's token cannot be revoked over the API", async () => {
    const tokens = await get("/api/tokens");
    const fileTokens = (tokens.body as { id: string }[]).filter((t) => t.id.startsWith("dashboard-token-file:"));
    expect(fileTokens).toHaveLength(1);
    const reply = await request(server, "DELETE", `/api/tokens/${fileTokens[0]!.id}`);
    expect(reply.status).toBe(409);
    expect((await get("/api/interruptions/count")).status).toBe(200);
  });
});

// -----------------------------------------------------------------------------------------------
type Method = "GET" | "POST" | "DELETE";
type Prepared = { route: string; body?: unknown; verify: (allowed: boolean, reply: Reply<unknown>) => Promise<void> };
type RouteCase = { method: Method; path: string; ok: number; prepare: () => Promise<Prepared> };

const ROUTES: RouteCase[] = [
  {
    method: "GET", path: "/api/interruptions", ok: 200,
    prepare: async () => ({ route: "/api/interruptions?limit=5", verify: async (allowed, reply) => { if (allowed) expect(Array.isArray(reply.body)).toBe(true); } }),
  },
  {
    method: "GET", path: "/api/interruptions/count", ok: 200,
    prepare: async () => ({ route: "/api/interruptions/count", verify: async (allowed, reply) => { if (allowed) expect(reply.body).toHaveProperty("by_severity"); } }),
  },
  {
    method: "POST", path: "/api/interruptions/{id}/resolve", ok: 200,
    prepare: async () => {
      const r = await freshInterruption();
      return {
        route: `/api/interruptions/${r.interruption_id}/resolve`, body: {},
        verify: async (allowed) => expect(await statusOf(r.interruption_id)).toBe(allowed ? "resolved" : "open"),
      };
    },
  },
  {
    method: "POST", path: "/api/interruptions/bulk", ok: 200,
    prepare: async () => {
      const r = await freshInterruption();
      return {
        route: "/api/interruptions/bulk", body: { ids: [r.interruption_id], action: "acknowledge" },
        verify: async (allowed) => expect(await statusOf(r.interruption_id)).toBe(allowed ? "acknowledged" : "open"),
      };
    },
  },
  {
    method: "POST", path: "/api/ingest/calls", ok: 200,
    prepare: async () => {
      const c = call({ session_id: uid("scoped-ingest") });
      return {
        route: "/api/ingest/calls", body: [c],
        verify: async (allowed) => expect((await get(`/api/calls/${c.call_id}`)).status).toBe(allowed ? 200 : 404),
      };
    },
  },
  {
    method: "POST", path: "/api/tokens", ok: 201,
    prepare: async () => {
      const name = uid("minted");
      return {
        route: "/api/tokens", body: { name, scopes: ["read"] },
        verify: async (allowed) => expect((await listTokens()).some((t) => t.name === name)).toBe(allowed),
      };
    },
  },
  {
    method: "GET", path: "/api/tokens", ok: 200,
    prepare: async () => ({ route: "/api/tokens", verify: async (allowed, reply) => { if (allowed) expect(Array.isArray(reply.body)).toBe(true); } }),
  },
  {
    method: "DELETE", path: "/api/tokens/{id}", ok: 200,
    prepare: async () => {
      const victim = await createToken(server, uid("matrix-victim"), ["read"]);
      return {
        route: `/api/tokens/${victim.id}`,
        verify: async (allowed) => {
          expect((await listTokens()).find((t) => t.id === victim.id)!.revoked_at_ns === null).toBe(!allowed);
          expect((await get("/api/interruptions/count", victim.token)).status).toBe(allowed ? 401 : 200);
        },
      };
    },
  },
];

const scopeOf = (method: Method, path: string) => {
  const c = contracts().find((x) => x.method === method && x.path === path);
  expect(c, `${method} ${path} has a contract`).toBeDefined();
  return c!.scope;
};

type Credential = { label: string; header: () => string | null; urlToken?: () => string; scopes: string[] | null };

const CREDENTIALS: Credential[] = [
  { label: "read", header: () => tokens.read.token, scopes: ["read"] },
  { label: "triage", header: () => tokens.triage.token, scopes: ["triage"] },
  { label: "ingest", header: () => tokens.ingest.token, scopes: ["ingest"] },
  { label: "admin", header: () => tokens.admin.token, scopes: ["admin"] },
  { label: "no token", header: () => null, scopes: null },
  { label: "revoked", header: () => tokens.revoked.token, scopes: null },
  { label: "expired", header: () => tokens.expired.token, scopes: null },
  { label: "token in the URL", header: () => null, urlToken: () => tokens.admin.token, scopes: null },
];

describe("route × scope matrix", () => {
  beforeAll(async () => {
    // the revoked and expiring admin tokens work until they are revoked / expire
    expect((await get("/api/tokens", tokens.revoked.token)).status).toBe(200);
    expect((await request(server, "DELETE", `/api/tokens/${tokens.revoked.id}`)).status).toBe(200);
    if (Date.now() < expiresAtMs - 300) expect((await get("/api/tokens", tokens.expired.token)).status).toBe(200);
    const wait = expiresAtMs + 50 - Date.now();
    if (wait > 0) await sleep(wait);
  });

  it("the contracts give each route the scope SPEC §5.3 implies", () => {
    expect(ROUTES.map((r) => [r.method, r.path, scopeOf(r.method, r.path)])).toEqual([
      ["GET", "/api/interruptions", "read"],
      ["GET", "/api/interruptions/count", "read"],
      ["POST", "/api/interruptions/{id}/resolve", "triage"],
      ["POST", "/api/interruptions/bulk", "triage"],
      ["POST", "/api/ingest/calls", "ingest"],
      ["POST", "/api/tokens", "admin"],
      ["GET", "/api/tokens", "admin"],
      ["DELETE", "/api/tokens/{id}", "admin"],
    ]);
    // every route with data needs a scope; only health and the API document are open
    expect(contracts().filter((c) => c.scope === null).map((c) => c.path).sort()).toEqual(["/api/health", "/api/openapi.json"]);
  });

  for (const cred of CREDENTIALS) {
    it(`${cred.label}: allowed where its scope (or admin) matches, 403 elsewhere, 401 when not a valid token`, async () => {
      const outcome: string[] = [];
      const expected: string[] = [];
      for (const rc of ROUTES) {
        const scope = scopeOf(rc.method, rc.path)!;
        const allowed = cred.scopes !== null && (cred.scopes.includes(scope) || cred.scopes.includes("admin"));
        const want = cred.scopes === null ? 401 : allowed ? rc.ok : 403;
        const prepared = await rc.prepare();
        let route = prepared.route;
        if (cred.urlToken) route += `${route.includes("?") ? "&" : "?"}token=${cred.urlToken()}`;
        const reply = await request(server, rc.method, route, prepared.body, cred.header());
        outcome.push(`${rc.method} ${rc.path} → ${reply.status}`);
        expected.push(`${rc.method} ${rc.path} → ${want}`);
        if (reply.status >= 400) expectError(reply, reply.status);
        if (reply.status === 403) expect((reply.body as { error: string }).error).toContain(scope);
        if (reply.status === want) await prepared.verify(allowed, reply);
      }
      expect(outcome).toEqual(expected);
    });
  }

  it("a read-only token can read and cannot resolve, ingest or mint tokens", async () => {
    const read = tokens.read.token;
    expect((await get("/api/interruptions", read)).status).toBe(200);
    expect((await get("/api/interruptions/stats", read)).status).toBe(200);
    expect((await get("/api/sessions", read)).status).toBe(200);
    const r = await freshInterruption();
    expect((await get(`/api/interruptions/${r.interruption_id}/activity`, read)).status).toBe(200);
    for (const action of ["resolve", "acknowledge", "reopen"]) expectError(await post(`/api/interruptions/${r.interruption_id}/${action}`, {}, read), 403, /triage/);
    expectError(await post(`/api/interruptions/${r.interruption_id}/notes`, { note: "hi" }, read), 403, /triage/);
    expectError(await post("/api/ingest/calls", call(), read), 403, /ingest/);
    expectError(await post("/api/ingest/events", { kind: "turn_end", session_id: "s", turn_id: "t", reason: "completed", at_ns: "1" }, read), 403, /ingest/);
    expectError(await post("/api/tokens", { name: "escalate", scopes: ["admin"] }, read), 403, /admin/);
    expect(await statusOf(r.interruption_id)).toBe("open");
    expect((await get<unknown[]>(`/api/interruptions/${r.interruption_id}/activity`)).body).toEqual([]);
  });

  it("a triage token's actions are recorded under its name", async () => {
    const r = await freshInterruption();
    expect((await post(`/api/interruptions/${r.interruption_id}/acknowledge`, {}, tokens.triage.token)).status).toBe(200);
    const rec = await get<InterruptionRecord>(`/api/interruptions/${r.interruption_id}`);
    expect(rec.body.acknowledged_by).toBe(`token:${tokens.triage.name}`);
  });
});
