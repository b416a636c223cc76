// The ingest routes are answered beside Next.js's request pipeline (lib/server/directRoutes.ts).
// Against the real server: bodies that arrive in pieces, bodies over the limit (a 413 the client
// can read, the connection still usable), clients that leave mid-body, a query string, and a
// signed-in user's cookie (the same-origin rule); every other route still goes through Next.
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, json, uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";
import { passwordSignIn, withCookie } from "./support/session";

const LIMIT = 64 * 1024;
const ADMIN = { email: "direct-admin@example.com", password: "direct-admin-pass-1" };
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ SIGHTDESK_MAX_BODY_BYTES: String(LIMIT), SIGHTDESK_ADMIN_EMAIL: ADMIN.email, SIGHTDESK_ADMIN_PASSWORD: ADMIN.password });
});
afterAll(async () => {
  await server?.stop();
});

type Reply = { status: number; body: string };

/** A POST whose body is written in `pieces`, `gapMs` apart, without a Content-Length (chunked). */
function postInPieces(route: string, pieces: string[], agent: http.Agent, gapMs = 5): Promise<Reply> {
  const url = new URL(route, server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    let i = 0;
    const next = () => {
      if (i === pieces.length) return void req.end();
      req.write(pieces[i++], () => setTimeout(next, gapMs));
    };
    next();
  });
}

const sessionCalls = async (sessionId: string) => {
  const res = await server.api(`/api/sessions/${encodeURIComponent(sessionId)}/calls`);
  expect(res.status).toBe(200);
  return ((await res.json()) as unknown[]).length;
};

describe("ingest served beside Next.js", () => {
  it("stores a body that arrives in pieces, and answers on the same connection again", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sessionId = uid("pieces");
      const text = json(call({ session_id: sessionId }));
      const cut = [text.slice(0, 7), text.slice(7, 300), text.slice(300)];
      const first = await postInPieces("/api/ingest/calls?from=test", cut, agent);
      expect(first.status, first.body).toBe(200);
      expect(JSON.parse(first.body)).toMatchObject({ received: 1, accepted: 1 });
      const second = await postInPieces("/api/ingest/calls", [json(call({ session_id: sessionId }, 1000))], agent);
      expect(second.status, second.body).toBe(200);
      expect(await sessionCalls(sessionId)).toBe(2);
    } finally {
      agent.destroy();
    }
  });

  it("answers 413 to a chunked body over the limit and keeps serving", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const piece = "x".repeat(16 * 1024);
      const over = await postInPieces("/api/ingest/calls", Array.from({ length: 8 }, () => piece), agent, 1);
      expect(over.status).toBe(413);
      expect(JSON.parse(over.body)).toEqual({ error: `Request body exceeds ${LIMIT} bytes` });
      const declared = await server.api("/api/ingest/calls", { method: "POST", body: "y".repeat(LIMIT + 1) });
      expect(declared.status).toBe(413);
      const sessionId = uid("after-413");
      const ok = await postInPieces("/api/ingest/calls", [json(call({ session_id: sessionId }))], agent);
      expect(ok.status, ok.body).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it("survives clients that leave mid-body", async () => {
    for (let n = 0; n < 5; n++) {
      await new Promise<void>((resolve) => {
        const req = http.request(new URL("/api/ingest/calls", server.url), {
          method: "POST",
          headers: { authorization: `Bearer ${server.token}`, "content-length": "5000" },
        });
        req.on("error", () => resolve());
        req.write(`[{"session_id": "${uid("gone")}"`, () => {
          req.destroy();
          resolve();
        });
      });
    }
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
    const sessionId = uid("after-gone");
    expect((await server.api("/api/ingest/calls", { method: "POST", body: json(call({ session_id: sessionId })) })).status).toBe(200);
    expect(await sessionCalls(sessionId)).toBe(1);
    expect(server.stderr()).not.toMatch(/unhandled|TypeError/i);
  });

  it("answers a request without a valid token 401 before its body has come (it is never held in memory)", async () => {
    for (const authorization of [undefined, "Bearer not-a-token"]) {
      const reply = await new Promise<number>((resolve, reject) => {
        const req = http.request(new URL("/api/ingest/calls", server.url), {
          method: "POST",
          headers: { "content-type": "application/json", "content-length": String(LIMIT - 1), ...(authorization ? { authorization } : {}) },
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode!);
          req.destroy();
        });
        req.on("error", (e) => reject(e));
        // a first kilobyte, and the rest never: before, the server waited for the whole body to check the token
        req.write(`[${" ".repeat(1024)}`);
      });
      expect(reply, authorization ?? "no Authorization").toBe(401);
    }
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  it("takes a signed-in user's cookie from this origin only", async () => {
    const cookie = (await passwordSignIn(server, ADMIN.email, ADMIN.password)).cookie!;
    expect(cookie).toBeTruthy();
    const sessionId = uid("cookie");
    const body = json(call({ session_id: sessionId }));
    const same = await withCookie(server, cookie, "/api/ingest/calls", { method: "POST", body });
    expect(same.status, await same.text()).toBe(200);
    const foreign = await fetch(`${server.url}/api/ingest/calls`, { method: "POST", body, headers: { cookie, origin: "https://evil.example", "content-type": "application/json" } });
    expect(foreign.status).toBe(403);
    expect(await sessionCalls(sessionId)).toBe(1);
  });

  it("reads repeated headers as Node.js and Next.js do (the first Authorization counts)", async () => {
    const sessionId = uid("twice");
    const body = json(call({ session_id: sessionId }));
    const url = new URL(server.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(
          [`POST /api/ingest/calls HTTP/1.1`, `Host: ${url.host}`, `Authorization: Bearer ${server.token}`, `Authorization: Bearer wrong`,
            `Content-Type: application/json`, `Content-Length: ${Buffer.byteLength(body)}`, `Connection: close`, "", body].join("\r\n"),
        );
      });
      let answer = "";
      socket.setEncoding("utf8").on("data", (c: string) => (answer += c)).on("end", () => resolve(answer)).on("error", reject);
    });
    const reply = { status: Number(raw.split(" ")[1]), body: raw.slice(raw.indexOf("\r\n\r\n") + 4) };
    expect(reply.status, reply.body).toBe(200);
    expect(await sessionCalls(sessionId)).toBe(1);
  });

  it("leaves other methods, and paths but its own exact ones, to Next.js", async () => {
    expect((await server.api("/api/ingest/calls")).status).toBe(405);
    // a trailing slash is Next's to serve (it no longer redirects it: next.config.ts), by the same route
    const slash = await server.api("/api/ingest/calls/", { method: "POST", body: json(call()), redirect: "manual" });
    expect(slash.status).toBe(200);
  });
});
