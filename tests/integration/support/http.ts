// Helpers for the REST API suites: exact-integer JSON parsing, typed requests, clean-error checks,
// the record shapes of SPEC §5.1, and payloads that trigger a chosen interruption type.
import http from "node:http";
import net from "node:net";
import { expect } from "vitest";
import { parseJsonExact } from "@/lib/wire/json";
import type * as Wire from "@/lib/api/contracts/wire";
import { call, uid } from "./payloads";
import type { TestServer } from "./server";

/** Replies read as the CLI and the browser read them: long `*_ns` integers stay exact, as strings. */
export const parseExact = parseJsonExact;

export type Reply<T> = { status: number; headers: Headers; text: string; body: T };

/** One request; the body is parsed with `parseExact` (ns values arrive as digit strings). */
export async function request<T = unknown>(
  server: TestServer,
  method: "GET" | "POST" | "DELETE",
  route: string,
  body?: unknown,
  token?: string | null,
): Promise<Reply<T>> {
  const init: RequestInit & { token?: string | null } = { method, token };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const res = await server.api(route, init);
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? parseExact(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, text, body: parsed as T };
}

export type ErrorBody = { error: string };

/** An error response: the status, a `{"error": "..."}` body (nothing else), no stack or paths. */
export function expectError(reply: Reply<unknown>, status: number, mentions?: RegExp | string): string {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("content-type") ?? "").toMatch(/application\/json/);
  const body = reply.body as Record<string, unknown>;
  expect(body !== null && typeof body === "object", reply.text).toBe(true);
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error).toBe("string");
  const message = body.error as string;
  expect(message.length).toBeGreaterThan(0);
  expectNoStack(reply.text);
  if (mentions !== undefined) expect(message).toMatch(mentions);
  return message;
}

/** No stack frames, source paths or module names in a response body. */
export function expectNoStack(text: string): void {
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|\n\s+at\s|\\n\s+at\s/);
  expect(text).not.toMatch(/\/(work|home|tmp|usr|app|var)\/|node_modules|\.next\/|\.tsx?:\d+|\.js:\d+/);
  expect(text).not.toMatch(/PrismaClient|prisma\.|SqliteError|TypeError|ReferenceError/);
}

export const AGENTSIGHT_KEYS = [
  "interruption_id",
  "session_id",
  "trace_id",
  "conversation_id",
  "call_id",
  "pid",
  "agent_name",
  "interruption_type",
  "severity",
  "occurred_at_ns",
  "detail",
  "resolved",
] as const;

export const SIGHTDESK_KEYS = [
  "status",
  "assignee",
  "acknowledged_by",
  "resolved_by",
  "resolved_at_ns",
  "occurrences",
  "last_seen_ns",
  "fingerprint",
  "regressed",
  "snooze_id",
] as const;

export type { Status } from "@/lib/domain/interruptions";

// Response shapes, derived from the route contracts (as parsed here: `*_ns` values are strings).
export type InterruptionRecord = Wire.InterruptionRecord;
export type CreatedToken = Wire.CreatedToken;
export type CountBody = Wire.CountResponse;
export type BySeverity = Wire.SeverityCounts;
export type TypeCount = Wire.TypeCount;
export type SessionCount = Wire.SessionCount;
export type ConversationCount = Wire.ConversationCount;
export type AgentCount = Wire.AgentCount;
type ActivityState = { status?: string; assignee?: string | null } | null;
/** An activity entry, with the before/after states the suites read. */
export type Activity = Omit<Wire.Activity, "before" | "after"> & { before: ActivityState; after: ActivityState };
export type IngestResult = Wire.IngestResult;

export const severities = (counts: Partial<BySeverity> = {}): BySeverity => ({ critical: 0, high: 0, medium: 0, low: 0, ...counts });

/** A 19-digit nanosecond timestamp `ms` milliseconds ago, with non-zero low digits. */
export function nsAgo(ms: number, jitter = 123_457): string {
  return (BigInt(Date.now() - ms) * 1_000_000n + BigInt(jitter)).toString();
}

/** Per-call failure types this suite triggers, with their default severity (SPEC §3.1). */
export const FAILURES = {
  rate_limit: { severity: "medium", fields: { status_code: 429, error: "Too Many Requests" } },
  safety_filter: { severity: "medium", fields: { status_code: 400, error: "content_filter: the response was filtered" } },
  service_unavailable: { severity: "high", fields: { status_code: 503, error: "Service Unavailable" } },
  auth_error: { severity: "high", fields: { status_code: 401, error: "invalid_api_key" } },
  network_timeout: { severity: "high", fields: { status_code: 504, error: "Gateway Time-out" } },
  context_overflow: { severity: "high", fields: { status_code: 413, error: "context_length_exceeded" } },
  llm_error: { severity: "high", fields: { status_code: 500, error: "internal server error" } },
} as const;

export type FailureType = keyof typeof FAILURES;

/**
 * A call that fails with `type`. Each gets its own conversation unless one is given, so that
 * repeats never add a retry_storm or dead_loop.
 */
export function failingCall(type: FailureType, overrides: Record<string, unknown> = {}, atMs = 0) {
  return call({ ...FAILURES[type].fields, output_messages: [], finish_reasons: [], conversation_id: uid("conv"), ...overrides }, atMs);
}

/** Mints a token with the server's all-scope token. */
export async function createToken(server: TestServer, name: string, scopes: string[], expiresAt?: string): Promise<CreatedToken> {
  const reply = await request<CreatedToken>(server, "POST", "/api/tokens", { name, scopes, ...(expiresAt ? { expires_at: expiresAt } : {}) });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** Ingests calls (must succeed). */
export async function ingestCalls(server: TestServer, calls: unknown[]): Promise<IngestResult> {
  const reply = await request<IngestResult>(server, "POST", "/api/ingest/calls", calls);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Ingests lifecycle events (must succeed). */
export async function ingestEvents(server: TestServer, events: unknown[]): Promise<Wire.IngestEventsResult> {
  const reply = await request<Wire.IngestEventsResult>(server, "POST", "/api/ingest/events", events);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** A session's interruptions (oldest first). */
export async function sessionInterruptions(server: TestServer, sessionId: string): Promise<InterruptionRecord[]> {
  const reply = await request<InterruptionRecord[]>(server, "GET", `/api/sessions/${encodeURIComponent(sessionId)}/interruptions`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** The one interruption a call produced. */
export async function interruptionOfCall(server: TestServer, sessionId: string, callId: string): Promise<InterruptionRecord> {
  const found = (await sessionInterruptions(server, sessionId)).filter((r) => r.call_id === callId);
  expect(found, `interruptions of call ${callId}`).toHaveLength(1);
  return found[0];
}

/** `<url>` of a `Link: <url>; rel="next"` header, or null. */
export function nextLink(headers: Headers): string | null {
  const link = headers.get("link");
  if (!link) return null;
  const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(link);
  return match ? match[1] : null;
}

/** A route (path + query) from a Link target, absolute or relative. */
export function routeOf(link: string, base: string): string {
  const url = new URL(link, base);
  return `${url.pathname}${url.search}`;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A request through node:http, which sends the path as written (fetch resolves dot segments) and
 * any header (fetch refuses Upgrade and Connection); the status and the body, or "upgraded".
 */
export function nodeRequest(url: string, init: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: init.method ?? "GET", path: init.path ?? `${u.pathname}${u.search}`, headers: init.headers });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("upgrade", () => reject(new Error("upgraded")));
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Sends `text` as is on a new connection; resolves with all the answer (the request says Connection: close). */
export function rawRequest(base: string, text: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer in 10 s; so far: ${Buffer.concat(chunks).toString("utf8").slice(0, 200)}`)));
  });
}
