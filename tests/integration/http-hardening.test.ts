// HTTP hardening (issue 11) against the real server: every response (pages, the login page, API
// routes, API errors, 404s, static files) forbids framing, and every page of the signed-in app
// answers a request without a session — a full page load or its RSC payload alone, as client
// navigation fetches it — with a redirect to /login that leads back, never with the page's data.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, json } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";
import { request } from "./support/http";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

function expectNoFraming(res: Response, what: string): void {
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  expect(res.headers.get("content-security-policy"), what).toMatch(/(^|;)\s*frame-ancestors 'none'\s*(;|$)/);
}

describe("frame headers", () => {
  it("are on pages, /login, API routes, API errors, /api/health, 404s and static files", async () => {
    const login = await fetch(`${server.url}/login`);
    expect(login.status).toBe(200);
    const html = await login.text();
    expectNoFraming(login, "/login");
    const asset = html.match(/\/_next\/static\/[^"]+\.js/)?.[0];
    expect(asset).toBeTruthy();

    const checks: Array<[string, Promise<Response>, number]> = [
      ["page (redirect)", fetch(`${server.url}/inbox`, { redirect: "manual" }), 307],
      ["page (RSC)", fetch(`${server.url}/settings`, { redirect: "manual", headers: { RSC: "1" } }), 307],
      ["API route", server.api("/api/interruptions/count"), 200],
      ["API error 401", server.api("/api/interruptions", { token: null }), 401],
      ["API error 404", server.api("/api/interruptions/no-such-id"), 404],
      ["API error 400", server.api("/api/interruptions?limit=-1"), 400],
      // the ingest routes are answered beside Next.js's pipeline (lib/server/directRoutes.ts)
      ["ingest", server.api("/api/ingest/calls", { method: "POST", body: json(call()) }), 200],
      ["ingest error 400", server.api("/api/ingest/calls", { method: "POST", body: "{" }), 400],
      ["ingest error 401", server.api("/api/ingest/calls", { method: "POST", body: "{}", token: null }), 401],
      ["/api/health", fetch(`${server.url}/api/health`), 200],
      ["next-auth", fetch(`${server.url}/api/auth/csrf`), 200],
      ["404 page", fetch(`${server.url}/no-such-page`), 404],
      ["static file", fetch(`${server.url}${asset}`), 200],
      ["missing static file", fetch(`${server.url}/_next/static/nope.js`), 404],
    ];
    for (const [what, pending, status] of checks) {
      const res = await pending;
      expect(res.status, what).toBe(status);
      expectNoFraming(res, what);
      await res.arrayBuffer();
    }
  });
});

describe("an /api path no route serves", () => {
  it("is a JSON 404 naming the method and path, for every method (it was Next's HTML page)", async () => {
    for (const [method, route] of [["GET", "/api/nope"], ["POST", "/api/interruptions/some-id/nope"], ["DELETE", "/api/v2/interruptions"], ["PUT", "/api/sessions/s/calls/x"]]) {
      const res = await server.api(route, { method, ...(method === "GET" ? {} : { body: "{}" }) });
      expect([res.status, res.headers.get("content-type")], `${method} ${route}`).toEqual([404, "application/json; charset=utf-8"]);
      expect(await res.json()).toEqual({ error: `No API route ${method} ${route}` });
    }
    // the routes that exist still answer, the unknown method of one with 405
    expect((await server.api("/api/interruptions/count")).status).toBe(200);
    expect((await server.api("/api/interruptions/count", { method: "DELETE" })).status).toBe(405);
  });
});

/** Each page, and strings only its rendering would put in the response. */
const PAGES: Array<{ path: string; marks: RegExp }> = [
  { path: "/", marks: /"Overview"/ },
  { path: "/inbox?severity=high&status=open", marks: /"Inbox"/ },
  { path: "/interruptions/int-secret-7f3a", marks: /InterruptionDetail|"id":"int-secret-7f3a"|Loading interruption/ },
  { path: "/sessions", marks: /SessionsList/ },
  { path: "/sessions/sess-secret-9b1c", marks: /SessionTrajectory|"sessionId":"sess-secret-9b1c"|Loading session/ },
  { path: "/settings", marks: /slow_response|config-thresholds|UsersSection|TokensSection|Who can sign in/ },
];

const loginFor = (path: string) => `/login?callbackUrl=${encodeURIComponent(path)}`;

/** The location a redirect points at, relative to the server. */
const relative = (location: string | null) => (location ? location.replace(server.url, "") : null);

describe("pages without a session", () => {
  it.each(PAGES)("$path: a full load redirects to /login with a callbackUrl, without the page", async ({ path, marks }) => {
    const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
    const body = await res.text();
    expect(res.status).toBe(307);
    expect(relative(res.headers.get("location"))).toBe(loginFor(path));
    expect(body).not.toMatch(marks);
  });

  it.each(PAGES)("$path: the RSC payload alone (client navigation) redirects to /login, without the page", async ({ path, marks }) => {
    // as the client router fetches it, coming from another page of the app (so the layout, shared
    // with that page, is not rendered again: only the page can stop the request)
    const from = path.startsWith("/settings") ? "sessions" : "settings";
    const tree = encodeURIComponent(JSON.stringify(["", { children: ["(app)", { children: [from, { children: ["__PAGE__", {}] }] }] }]));
    const headers = { RSC: "1", "Next-Router-State-Tree": tree };
    let res = await fetch(`${server.url}${path}`, { redirect: "manual", headers });
    // Next first sends the client to the cache-busting `_rsc` URL of the same page
    const rscUrl = relative(res.headers.get("location"));
    if (res.status === 307 && rscUrl && new URL(rscUrl, server.url).pathname === new URL(path, server.url).pathname) {
      await res.arrayBuffer();
      res = await fetch(`${server.url}${rscUrl}`, { redirect: "manual", headers });
    }
    const body = await res.text();
    if (res.status === 307 || res.status === 303) {
      expect(relative(res.headers.get("location"))).toBe(loginFor(path));
    } else {
      expect(res.status).toBe(200);
      // the router follows a redirect carried in the payload
      expect(body).toContain(`NEXT_REDIRECT;replace;${loginFor(path)};307;`);
    }
    expect(body).not.toMatch(marks);
  });

  it("a page asked for with a trailing slash is sent to its path without it, keeping the query; an API path is served as it is", async () => {
    for (const [path, to] of [["/inbox/", "/inbox"], ["/inbox/?severity=high", "/inbox?severity=high"], ["/sessions/s-1/", "/sessions/s-1"]]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect([path, res.status, relative(res.headers.get("location"))]).toEqual([path, 308, to]);
    }
    const api = await server.api("/api/interruptions/count/", { redirect: "manual" });
    expect([api.status, api.headers.get("location")]).toEqual([200, null]);
  });

  it("a session cookie that does not verify is no session", async () => {
    const res = await fetch(`${server.url}/settings`, { redirect: "manual", headers: { cookie: "next-auth.session-token=forged.value.here" } });
    expect(res.status).toBe(307);
    expect(relative(res.headers.get("location"))).toBe(loginFor("/settings"));
    expect(await res.text()).not.toMatch(/slow_response|config-thresholds/);
  });

  it("/login leads back to a callbackUrl on this site, and to / for any other", async () => {
    // the sign-in form's callbackUrl, as the page passes it (inside the HTML's RSC payload)
    const formTarget = async (callbackUrl: string) => {
      const res = await fetch(`${server.url}/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      expect(res.status).toBe(200);
      return (await res.text()).match(/\\"callbackUrl\\":\\"([^"\\]*)\\"/)?.[1];
    };
    expect(await formTarget("/inbox?severity=high")).toBe("/inbox?severity=high");
    for (const bad of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "/.//evil.example", "/..//evil.example", "/%2e//evil.example/x", "javascript:alert(1)", "/login", "inbox"]) {
      expect(await formTarget(bad), bad).toBe("/");
    }
  });
});

describe("bodies of the API's own routes (not ingest)", () => {
  it("refuse a body of many objects before parsing it, and one larger than a route can use, with the ingest limits kept for ingest", async () => {
    const many = `[${Array(20_000).fill("{}").join(",")}]`;
    const views = await request(server, "POST", "/api/views", many);
    expect(views.status).toBe(400);
    expect(views.text).toMatch(/more than 10,000 objects and arrays/);
    const huge = JSON.stringify({ name: "x".repeat(5 * 1024 * 1024), query: "" });
    expect((await request(server, "POST", "/api/views", huge)).status).toBe(413);
    // a bulk action's 100,000 ids (its limit) still fit
    const ids = Array.from({ length: 100_000 }, (_, i) => `00000000000000000000000000${String(i).padStart(6, "0")}`);
    const bulk = await request<{ matched: number }>(server, "POST", "/api/interruptions/bulk", { action: "acknowledge", ids });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.matched).toBe(0);
    // ingest keeps its own: a batch of 10,000 calls (≈ 100,000 objects and arrays, 6.5 MB) is taken
    const calls = Array.from({ length: 10_000 }, (_, i) => call({ call_id: `many-objects-${Date.now()}-${i}` }));
    const ingested = await request(server, "POST", "/api/ingest/calls", calls);
    expect(ingested.status, ingested.text.slice(0, 300)).toBe(200);
  }, 120_000);
});

describe("idle connections", () => {
  /** Requests sent one after another on one TCP connection, `idleMs` apart; what came back. */
  async function onOneConnection(requests: string[], idleMs: number): Promise<string> {
    const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1");
    let received = "";
    socket.on("data", (d: Buffer) => (received += d.toString("latin1")));
    socket.on("error", () => undefined); // a closed connection shows as missing answers
    await new Promise((r) => socket.once("connect", r));
    for (const [i, request] of requests.entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, idleMs));
      const answers = received.split("HTTP/1.1 ").length;
      if (!socket.destroyed) socket.write(request);
      for (let t = 0; t < 100 && received.split("HTTP/1.1 ").length === answers && !socket.destroyed; t++) await new Promise((r) => setTimeout(r, 50));
    }
    socket.destroy();
    return received;
  }

  it("stay open longer than a load balancer's 60 s, so a request sent on one after 6 s idle is answered", async () => {
    const health = `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const body = json([call()]);
    const ingest = `POST /api/ingest/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // Node's default closes an idle connection after 5 s
    const received = await onOneConnection([health, ingest, health], 6_000);
    expect(received.match(/HTTP\/1\.1 200/g)).toHaveLength(3);
    expect(received).toMatch(/Keep-Alive: timeout=65/);
  }, 30_000);
});
