// The interruption REST API against the real server: AgentSight-compatible shapes and defaults
// (SPEC §5.1), every filter, cursor pagination, the lifecycle (SPEC §4), bulk actions, error
// cases, the time series and the OpenAPI document.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contracts } from "@/lib/api/contract";
import "@/lib/api/contracts";
import { ns, uid } from "./support/payloads";
import {
  AGENTSIGHT_KEYS,
  SIGHTDESK_KEYS,
  createToken,
  expectError,
  expectNoStack,
  failingCall,
  ingestCalls,
  ingestEvents,
  interruptionOfCall,
  nextLink,
  nsAgo,
  request,
  routeOf,
  sessionInterruptions,
  severities,
  type Activity,
  type AgentCount,
  type ConversationCount,
  type CountBody,
  type FailureType,
  type InterruptionRecord,
  type Reply,
  type SessionCount,
  type TypeCount,
} from "./support/http";
import { startServer, type TestServer } from "./support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const get = <T>(route: string, token?: string | null) => request<T>(server, "GET", route, undefined, token);
const post = <T>(route: string, body?: unknown, token?: string | null) => request<T>(server, "POST", route, body, token);
const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
const ids = (records: InterruptionRecord[]) => records.map((r) => r.interruption_id);

async function list(params: Record<string, string | number>): Promise<InterruptionRecord[]> {
  const reply = await get<InterruptionRecord[]>(`/api/interruptions?${q(params)}`);
  expect(reply.status, reply.text).toBe(200);
  expect(Array.isArray(reply.body)).toBe(true);
  return reply.body;
}

async function activity(id: string): Promise<Activity[]> {
  const reply = await get<Activity[]>(`/api/interruptions/${id}/activity`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function record(id: string): Promise<InterruptionRecord> {
  const reply = await get<InterruptionRecord>(`/api/interruptions/${id}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** One fresh open interruption of its own agent and session. */
async function freshInterruption(type: Parameters<typeof failingCall>[0] = "llm_error"): Promise<InterruptionRecord> {
  const sessionId = uid("fresh");
  const c = failingCall(type, { session_id: sessionId, agent_name: uid("FreshAgent") });
  await ingestCalls(server, [c]);
  return interruptionOfCall(server, sessionId, c.call_id);
}

const byTypeAndSeverity = (a: TypeCount, b: TypeCount) =>
  a.interruption_type.localeCompare(b.interruption_type) || a.severity.localeCompare(b.severity);

// -----------------------------------------------------------------------------------------------
describe("AgentSight-compatible routes (SPEC §5.1)", () => {
  // One agent with five interruptions across two sessions, three conversations and none:
  //   a1 rate_limit (medium)           s1 / c1   → resolved
  //   a2 service_unavailable (high)    s1 / c2   → acknowledged
  //   a3 auth_error (high)             s2 / c3
  //   a4 agent_crash (critical)        s2 / —    (process_exit of s2)
  //   a5 agent_crash (critical)        — / —     (process_exit of a process with no known session)
  const agent = uid("FilterAgent");
  const s1 = uid("s1");
  const s2 = uid("s2");
  const c1 = uid("c1");
  const c2 = uid("c2");
  const c3 = uid("c3");
  const ghostHost = uid("ghost-host");
  const calls = {
    a1: failingCall("rate_limit", { agent_name: agent, session_id: s1, conversation_id: c1 }, 0),
    a2: failingCall("service_unavailable", { agent_name: agent, session_id: s1, conversation_id: c2 }, 1000),
    a3: failingCall("auth_error", { agent_name: agent, session_id: s2, conversation_id: c3 }, 2000),
  };
  let a1: InterruptionRecord, a2: InterruptionRecord, a3: InterruptionRecord, a4: InterruptionRecord, a5: InterruptionRecord;

  beforeAll(async () => {
    await ingestCalls(server, Object.values(calls));
    const events = await ingestEvents(server, [
      { kind: "process_exit", pid: 4242, agent_name: agent, host: "test-host", session_id: s2, at_ns: ns(3000), oom: true },
      { kind: "process_exit", pid: 987_654, agent_name: agent, host: ghostHost, at_ns: ns(4000), exit_code: 137 },
    ]);
    expect(events.interruptions).toBe(2);
    a1 = await interruptionOfCall(server, s1, calls.a1.call_id);
    a2 = await interruptionOfCall(server, s1, calls.a2.call_id);
    a3 = await interruptionOfCall(server, s2, calls.a3.call_id);
    a4 = (await sessionInterruptions(server, s2)).find((r) => r.interruption_type === "agent_crash")!;
    const all = await list({ agent_name: agent });
    a5 = all.find((r) => r.interruption_type === "agent_crash" && r.session_id === null)!;
    expect(a4).toBeDefined();
    expect(a5).toBeDefined();
    expect((await post(`/api/interruptions/${a1.interruption_id}/resolve`, {})).status).toBe(200);
    expect((await post(`/api/interruptions/${a2.interruption_id}/acknowledge`, {})).status).toBe(200);
  });

  it("lists records with exactly the documented keys, newest first", async () => {
    const reply = await get<InterruptionRecord[]>(`/api/interruptions?${q({ agent_name: agent })}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/application\/json/);
    const records = reply.body;
    expect(ids(records)).toEqual(ids([a5, a4, a3, a2, a1]));
    for (const r of records) {
      expect(Object.keys(r).sort()).toEqual([...AGENTSIGHT_KEYS, ...SIGHTDESK_KEYS].sort());
      expect(r.interruption_id).toMatch(/^[0-9a-f]{32}$/);
      expect(r.occurred_at_ns).toMatch(/^\d{19}$/);
      expect(r.last_seen_ns).toMatch(/^\d{19}$/);
      expect(typeof r.detail).toBe("string");
      expect(typeof JSON.parse(r.detail)).toBe("object");
      expect(r.resolved).toBe(r.status === "resolved");
      expect(r.occurrences).toBe(1);
      expect(r.fingerprint).toMatch(/\S/);
    }
    const sorted = [...records].sort((x, y) => (BigInt(y.occurred_at_ns) > BigInt(x.occurred_at_ns) ? 1 : -1));
    expect(ids(sorted)).toEqual(ids(records));
    expect(records.find((r) => r.interruption_id === a3.interruption_id)).toMatchObject({
      session_id: s2, conversation_id: c3, call_id: calls.a3.call_id, pid: 4242, agent_name: agent,
      interruption_type: "auth_error", severity: "high", resolved: false, status: "open",
      assignee: null, acknowledged_by: null, resolved_by: null, resolved_at_ns: null,
    });
    expect(records.find((r) => r.interruption_id === a1.interruption_id)).toMatchObject({ resolved: true, status: "resolved" });
    expect(JSON.parse(a4.detail)).toMatchObject({ pid: 4242, oom: true });
    expect(JSON.parse(a5.detail)).toMatchObject({ pid: 987_654, exit_code: 137 });
    expect(a5).toMatchObject({ session_id: null, conversation_id: null, call_id: null, severity: "critical" });
  });

  it("filters by interruption_type, one or a comma list", async () => {
    expect(ids(await list({ agent_name: agent, interruption_type: "agent_crash" }))).toEqual(ids([a5, a4]));
    expect(ids(await list({ agent_name: agent, interruption_type: "rate_limit,auth_error" }))).toEqual(ids([a3, a1]));
  });

  it("filters by severity, one or a comma list", async () => {
    expect(ids(await list({ agent_name: agent, severity: "critical" }))).toEqual(ids([a5, a4]));
    expect(ids(await list({ agent_name: agent, severity: "high,medium" }))).toEqual(ids([a3, a2, a1]));
    expect(await list({ agent_name: agent, severity: "low" })).toEqual([]);
  });

  it("filters by resolved=true/false and by status", async () => {
    expect(ids(await list({ agent_name: agent, resolved: "true" }))).toEqual(ids([a1]));
    expect(ids(await list({ agent_name: agent, resolved: "false" }))).toEqual(ids([a5, a4, a3, a2]));
    expect(ids(await list({ agent_name: agent, status: "acknowledged" }))).toEqual(ids([a2]));
    expect(ids(await list({ agent_name: agent, status: "open,resolved" }))).toEqual(ids([a5, a4, a3, a1]));
  });

  it("filters by agent_name, session_id, conversation_id and q", async () => {
    expect(await list({ agent_name: uid("NobodyAgent") })).toEqual([]);
    expect(ids(await list({ agent_name: agent, session_id: s2 }))).toEqual(ids([a4, a3]));
    expect(ids(await list({ session_id: s1 }))).toEqual(ids([a2, a1]));
    expect(ids(await list({ conversation_id: c2 }))).toEqual(ids([a2]));
    expect(ids(await list({ agent_name: agent, q: calls.a3.call_id }))).toEqual(ids([a3]));
    expect(ids(await list({ agent_name: agent, q: "service_unavailable" }))).toEqual(ids([a2]));
    expect(ids(await list({ agent_name: agent, q: "Service_UNAVAILABLE" }))).toEqual(ids([a2])); // case-insensitive on every database
    expect(ids(await list({ q: a4.interruption_id }))).toEqual(ids([a4]));
  });

  it("count is {total, by_severity}: unresolved only, honouring agent_name", async () => {
    const reply = await get<CountBody>(`/api/interruptions/count?${q({ agent_name: agent })}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ total: 4, by_severity: severities({ critical: 2, high: 2 }) });
    expect(Object.keys(reply.body.by_severity)).toEqual(["critical", "high", "medium", "low"]);
    const none = await get<CountBody>(`/api/interruptions/count?${q({ agent_name: uid("NobodyAgent") })}`);
    expect(none.body).toEqual({ total: 0, by_severity: severities() });
    const all = await get<CountBody>("/api/interruptions/count");
    expect(all.body.total).toBeGreaterThanOrEqual(4);
    // a list parameter given empty (what `--agent ""` sends) is no filter, as for every list parameter; before, it matched nothing
    for (const param of ["agent_name", "severity", "status", "interruption_type", "fingerprint", "assignee"]) {
      expect((await get<CountBody>(`/api/interruptions/count?${param}=`)).body, param).toEqual(all.body);
    }
  });

  it("stats are [{interruption_type, severity, count}]: unresolved only, honouring agent_name", async () => {
    const reply = await get<TypeCount[]>(`/api/interruptions/stats?${q({ agent_name: agent })}`);
    expect(reply.status).toBe(200);
    for (const row of reply.body) expect(Object.keys(row).sort()).toEqual(["count", "interruption_type", "severity"]);
    expect([...reply.body].sort(byTypeAndSeverity)).toEqual([
      { interruption_type: "agent_crash", severity: "critical", count: 2 },
      { interruption_type: "auth_error", severity: "high", count: 1 },
      { interruption_type: "service_unavailable", severity: "high", count: 1 },
    ]);
  });

  it("session-counts: unresolved only, one __unassigned__ group for interruptions without a session", async () => {
    const reply = await get<SessionCount[]>(`/api/interruptions/session-counts?${q({ agent_name: agent })}`);
    expect(reply.status).toBe(200);
    for (const row of reply.body) expect(Object.keys(row).sort()).toEqual(["by_severity", "session_id", "total", "types"]);
    expect(reply.body.filter((r) => r.session_id === "__unassigned__")).toHaveLength(1);
    const bySession = new Map(reply.body.map((r) => [r.session_id, r]));
    expect(bySession.size).toBe(3);
    expect(bySession.get(s1)).toEqual({
      session_id: s1, total: 1, by_severity: severities({ high: 1 }),
      types: [{ interruption_type: "service_unavailable", severity: "high", count: 1 }],
    });
    const second = bySession.get(s2)!;
    expect(second).toMatchObject({ session_id: s2, total: 2, by_severity: severities({ critical: 1, high: 1 }) });
    expect([...second.types].sort(byTypeAndSeverity)).toEqual([
      { interruption_type: "agent_crash", severity: "critical", count: 1 },
      { interruption_type: "auth_error", severity: "high", count: 1 },
    ]);
    expect(bySession.get("__unassigned__")).toEqual({
      session_id: "__unassigned__", total: 1, by_severity: severities({ critical: 1 }),
      types: [{ interruption_type: "agent_crash", severity: "critical", count: 1 }],
    });
  });

  it("agent-counts: unresolved per agent name, with the sessions they are in, honouring the filters", async () => {
    const reply = await get<AgentCount[]>(`/api/interruptions/agent-counts?${q({ agent_name: agent })}`);
    expect(reply.status, reply.text).toBe(200);
    // a2 (s1), a3 and a4 (s2), a5 (no session); a1 is resolved
    expect(reply.body).toEqual([{ agent_name: agent, total: 4, by_severity: severities({ critical: 2, high: 2 }), sessions: 2 }]);
    const critical = await get<AgentCount[]>(`/api/interruptions/agent-counts?${q({ agent_name: agent, severity: "critical" })}`);
    expect(critical.body).toEqual([{ agent_name: agent, total: 2, by_severity: severities({ critical: 2 }), sessions: 1 }]);
    const all = await get<AgentCount[]>("/api/interruptions/agent-counts");
    const count = await get<CountBody>("/api/interruptions/count");
    expect(all.body.reduce((n, a) => n + a.total, 0)).toBe(count.body.total);
  });

  it("conversation-counts: ties by conversation id, types by type then severity, on either database", async () => {
    const o = { agent_name: uid("TieAgent"), session_id: uid("tie-s") };
    // b-conversation stored first, then a-: a database grouping them in storing order put b first
    await ingestCalls(server, [failingCall("rate_limit", { ...o, conversation_id: `${o.session_id}-b` }, 1000), failingCall("auth_error", { ...o, conversation_id: `${o.session_id}-b` }, 1100)]);
    await ingestCalls(server, [failingCall("rate_limit", { ...o, conversation_id: `${o.session_id}-a` }, 2000), failingCall("auth_error", { ...o, conversation_id: `${o.session_id}-a` }, 2100)]);
    const reply = await get<ConversationCount[]>(`/api/interruptions/conversation-counts?${q({ agent_name: o.agent_name })}`);
    expect(reply.body.map((c) => c.conversation_id)).toEqual([`${o.session_id}-a`, `${o.session_id}-b`]);
    for (const c of reply.body) expect(c.types.map((t) => t.interruption_type)).toEqual(["auth_error", "rate_limit"]);
  });

  it("conversation-counts: keyed by conversation_id with session_id, one __unassigned__ group", async () => {
    const reply = await get<ConversationCount[]>(`/api/interruptions/conversation-counts?${q({ agent_name: agent })}`);
    expect(reply.status).toBe(200);
    for (const row of reply.body) {
      expect(Object.keys(row).sort()).toEqual(["by_severity", "conversation_id", "session_id", "total", "types"]);
    }
    expect(reply.body.filter((r) => r.conversation_id === "__unassigned__")).toHaveLength(1);
    const byConversation = new Map(reply.body.map((r) => [r.conversation_id, r]));
    expect([...byConversation.keys()].sort()).toEqual(["__unassigned__", c2, c3].sort());
    expect(byConversation.get(c2)).toEqual({
      conversation_id: c2, session_id: s1, total: 1, by_severity: severities({ high: 1 }),
      types: [{ interruption_type: "service_unavailable", severity: "high", count: 1 }],
    });
    expect(byConversation.get(c3)).toMatchObject({ conversation_id: c3, session_id: s2, total: 1 });
    // a4 (session s2, no conversation) and a5 (no session) share the one unassigned group, whose
    // per-type counts add up: one agent_crash row with count 2
    const unassigned = byConversation.get("__unassigned__")!;
    expect(unassigned).toMatchObject({ conversation_id: "__unassigned__", total: 2, by_severity: severities({ critical: 2 }) });
    expect(unassigned.types).toEqual([{ interruption_type: "agent_crash", severity: "critical", count: 2 }]);
  });

  it("gets one record by id, identical to its list entry", async () => {
    const listed = (await list({ agent_name: agent })).find((r) => r.interruption_id === a3.interruption_id);
    expect(await record(a3.interruption_id)).toEqual(listed);
  });

  it("answers an unknown id with 404 and exactly {\"error\":\"Interruption not found\"}", async () => {
    const unknown = "0123456789abcdef0123456789abcdef";
    for (const reply of [await get(`/api/interruptions/${unknown}`), await post(`/api/interruptions/${unknown}/resolve`, {})]) {
      expect(reply.status).toBe(404);
      expect(reply.text).toBe('{"error":"Interruption not found"}');
    }
  });

  it("lists a session's and a conversation's interruptions oldest first", async () => {
    const sessionId = uid("ordered");
    const conversationId = uid("ordered-conv");
    const o = { session_id: sessionId, conversation_id: conversationId, agent_name: uid("OrderAgent") };
    const late = failingCall("auth_error", o, 3000);
    const early = failingCall("rate_limit", o, 1000);
    const middle = failingCall("service_unavailable", o, 2000);
    const other = failingCall("network_timeout", { ...o, conversation_id: uid("other-conv") }, 2500);
    await ingestCalls(server, [late, other]);
    await ingestCalls(server, [early, middle]);
    const bySession = await get<InterruptionRecord[]>(`/api/sessions/${sessionId}/interruptions`);
    expect(bySession.status).toBe(200);
    expect(bySession.body.map((r) => r.call_id)).toEqual([early.call_id, middle.call_id, other.call_id, late.call_id]);
    for (const r of bySession.body) expect(Object.keys(r).sort()).toEqual([...AGENTSIGHT_KEYS, ...SIGHTDESK_KEYS].sort());
    const byConversation = await get<InterruptionRecord[]>(`/api/conversations/${conversationId}/interruptions`);
    expect(byConversation.status).toBe(200);
    expect(byConversation.body.map((r) => r.call_id)).toEqual([early.call_id, middle.call_id, late.call_id]);
    expect((await get<InterruptionRecord[]>(`/api/sessions/${uid("no-such-session")}/interruptions`)).body).toEqual([]);

    // past `limit` (5000 by default, where the list stopped without saying so) a Link header goes on
    for (const [route, expected] of [
      [`/api/sessions/${sessionId}/interruptions?limit=2`, [early, middle, other, late]],
      [`/api/conversations/${conversationId}/interruptions?limit=1`, [early, middle, late]],
    ] as const) {
      const seen: string[] = [];
      let next: string | null = route;
      for (let pages = 0; next && pages < 10; pages++) {
        const page: Reply<InterruptionRecord[]> = await get<InterruptionRecord[]>(next);
        expect(page.status, page.text).toBe(200);
        seen.push(...page.body.map((r) => r.call_id!));
        const link = nextLink(page.headers);
        next = link && routeOf(link, server.url);
      }
      expect(seen).toEqual(expected.map((c) => c.call_id));
    }
    expectError(await get(`/api/sessions/${sessionId}/interruptions?cursor=nope`), 400, /cursor/);
    expectError(await get(`/api/sessions/${sessionId}/interruptions?limit=5001`), 400, /limit/);
  });

  it("writes nanoseconds as exact 19-digit JSON integers", async () => {
    const sessionId = uid("exact");
    const endNs = nsAgo(600_000, 987_654_321 % 1_000_000);
    const startNs = (BigInt(endNs) - 1_234_567_891n).toString();
    const c = failingCall("llm_error", { session_id: sessionId, start_ns: startNs, end_ns: endNs });
    // the body is written by hand: 19-digit integers, not strings
    const body = JSON.stringify([c]).replace(`"start_ns":"${startNs}"`, `"start_ns":${startNs}`).replace(`"end_ns":"${endNs}"`, `"end_ns":${endNs}`);
    expect(body).toContain(`"end_ns":${endNs}`);
    expect((await post("/api/ingest/calls", body)).status).toBe(200);
    const r = await interruptionOfCall(server, sessionId, c.call_id);
    expect(r.occurred_at_ns).toBe(endNs);
    for (const reply of [await get(`/api/interruptions/${r.interruption_id}`), await get(`/api/interruptions?${q({ session_id: sessionId })}`)]) {
      expect(reply.text).toContain(`"occurred_at_ns":${endNs}`);
      expect(reply.text).toContain(`"last_seen_ns":${endNs}`);
    }
    await post(`/api/interruptions/${r.interruption_id}/resolve`, {});
    const text = (await get(`/api/interruptions/${r.interruption_id}`)).text;
    const nsValues = [...text.matchAll(/"(\w+_ns)":([^,}\]]+)/g)];
    expect(nsValues.length).toBe(3);
    for (const [, key, value] of nsValues) expect(`${key}=${value}`).toMatch(/=\d{19}$/);
  });

  it("defaults to the last 24 hours; start_ns reaches further back", async () => {
    const agentName = uid("WindowAgent");
    const sessionId = uid("window");
    const old = failingCall("llm_error", { agent_name: agentName, session_id: sessionId, start_ns: nsAgo(25 * 3_600_000), end_ns: nsAgo(25 * 3_600_000 - 500) });
    const recent = failingCall("llm_error", { agent_name: agentName, session_id: sessionId }, 0);
    await ingestCalls(server, [old, recent]);
    expect((await list({ agent_name: agentName })).map((r) => r.call_id)).toEqual([recent.call_id]);
    const startNs = nsAgo(26 * 3_600_000);
    expect((await list({ agent_name: agentName, start_ns: startNs })).map((r) => r.call_id)).toEqual([recent.call_id, old.call_id]);
    expect((await get<CountBody>(`/api/interruptions/count?${q({ agent_name: agentName })}`)).body.total).toBe(1);
    expect((await get<CountBody>(`/api/interruptions/count?${q({ agent_name: agentName, start_ns: startNs })}`)).body.total).toBe(2);
    // an end_ns in the past moves the default start with it
    const endNs = nsAgo(24 * 3_600_000);
    expect((await list({ agent_name: agentName, end_ns: endNs })).map((r) => r.call_id)).toEqual([old.call_id]);
  });

  it("says on a first page what had arrived (X-Arrived-Through); arrived_after_ns asks what arrived since, whenever it occurred", async () => {
    const agentName = uid("ArrivalAgent");
    const shown = failingCall("llm_error", { agent_name: agentName, session_id: uid("arrival") });
    await ingestCalls(server, [shown]);
    const first = await get<InterruptionRecord[]>(`/api/interruptions?${q({ agent_name: agentName, limit: 1 })}`);
    const cursor = first.headers.get("x-arrived-through")!;
    expect([first.body.map((r) => r.call_id), cursor]).toEqual([[shown.call_id], expect.stringMatching(/^\d{19}$/)]);
    // nothing has arrived since; a page after the first has no cursor of its own
    expect(await list({ agent_name: agentName, arrived_after_ns: cursor })).toEqual([]);
    expect((await get(`/api/interruptions?${q({ agent_name: agentName, limit: 1, offset: 1, sort: "severity" })}`)).headers.get("x-arrived-through")).toBeNull();
    // a late arrival: it occurred an hour before the list was read
    const late = failingCall("llm_error", { agent_name: agentName, session_id: uid("arrival"), start_ns: nsAgo(3_600_000), end_ns: nsAgo(3_600_000 - 500) });
    await ingestCalls(server, [late]);
    expect((await list({ agent_name: agentName, arrived_after_ns: cursor })).map((r) => r.call_id)).toEqual([late.call_id]);
    expect((await get<CountBody>(`/api/interruptions/count?${q({ agent_name: agentName, arrived_after_ns: cursor })}`)).body.total).toBe(1);
    expectError(await get(`/api/interruptions?${q({ arrived_after_ns: "soon" })}`), 400, "arrived_after_ns");
    // past a 64-bit integer: refused by name, not a database error
    for (const name of ["arrived_after_ns", "start_ns", "end_ns"]) expectError(await get(`/api/interruptions?${q({ [name]: "99999999999999999999" })}`), 400, name);
    expectError(await get(`/api/interruptions?${q({ sort: "severity", offset: "999999999999999999999999" })}`), 400, "offset");
  });

  describe("limit and cursor pagination", () => {
    const agentName = uid("PagedAgent");
    const sessionId = uid("paged");
    let everything: InterruptionRecord[] = [];

    beforeAll(async () => {
      // 205 interruptions, four of them at each instant, so the cursor must break ties
      const batch = Array.from({ length: 205 }, (_, i) => failingCall("rate_limit", { agent_name: agentName, session_id: sessionId }, Math.floor(i / 4) * 1000));
      const result = await ingestCalls(server, batch);
      expect(result.interruptions).toBe(205);
      everything = await list({ agent_name: agentName, limit: 5000 });
      expect(everything).toHaveLength(205);
    });

    it("returns 200 by default with a Link rel=\"next\" that continues to the remaining 5", async () => {
      const first = await get<InterruptionRecord[]>(`/api/interruptions?${q({ agent_name: agentName })}`);
      expect(first.status).toBe(200);
      expect(first.body).toHaveLength(200);
      expect(first.headers.get("link")).toMatch(/^<[^>]+>;\s*rel="next"$/);
      const next = nextLink(first.headers)!;
      expect(new URL(next, server.url).searchParams.get("agent_name")).toBe(agentName);
      // the default window ("the last 24 h") is the first page's on every page: it must not move
      // on while one reads, or the rows that leave it meanwhile are never listed
      const pinned = new URL(next, server.url).searchParams;
      const [start, end] = [BigInt(pinned.get("start_ns") ?? "0"), BigInt(pinned.get("end_ns") ?? "0")];
      expect(end - start).toBe(24n * 3600n * 1_000_000_000n);
      expect(end).toBeGreaterThan(BigInt(everything[0].occurred_at_ns));
      const second = await get<InterruptionRecord[]>(routeOf(next, server.url));
      expect(second.status).toBe(200);
      expect(second.body).toHaveLength(5);
      expect(nextLink(second.headers)).toBeNull();
      const seen = [...ids(first.body), ...ids(second.body)];
      expect(new Set(seen).size).toBe(205);
      expect(seen).toEqual(ids(everything));
    });

    it("pages by cursor without duplicates or gaps, newest first across pages", async () => {
      let route: string | null = `/api/interruptions?${q({ agent_name: agentName, limit: 7 })}`;
      const seen: InterruptionRecord[] = [];
      let pages = 0;
      while (route) {
        const page: Reply<InterruptionRecord[]> = await get<InterruptionRecord[]>(route);
        expect(page.status, page.text).toBe(200);
        expect(page.body.length).toBeLessThanOrEqual(7);
        seen.push(...page.body);
        pages += 1;
        const link = nextLink(page.headers);
        route = link ? routeOf(link, server.url) : null;
        expect(pages).toBeLessThan(40);
      }
      expect(pages).toBe(30);
      expect(ids(seen)).toEqual(ids(everything));
      for (let i = 1; i < seen.length; i++) {
        const [a, b] = [seen[i - 1], seen[i]];
        const newerOrTie = BigInt(a.occurred_at_ns) > BigInt(b.occurred_at_ns) || (a.occurred_at_ns === b.occurred_at_ns && a.interruption_id > b.interruption_id);
        expect(newerOrTie).toBe(true);
      }
    });
  });
});

// -----------------------------------------------------------------------------------------------
describe("paging under every sort (the Link header's cursor)", () => {
  // seven interruptions of one session: three severities, three types, two agents and none
  const session = uid("paging");
  const plan: Array<[FailureType, string | null]> = [
    ["rate_limit", "agent-b"], ["service_unavailable", "agent-a"], ["auth_error", null], ["rate_limit", "agent-a"],
    ["service_unavailable", null], ["auth_error", "agent-b"], ["rate_limit", "agent-a"],
  ];
  const sorts = [{ sort: "severity", order: "desc" }, { sort: "severity", order: "asc" }, { sort: "type", order: "asc" }, { sort: "agent", order: "asc" }, { sort: "agent", order: "desc" }, { sort: "time", order: "desc" }];

  beforeAll(async () => {
    await ingestCalls(server, plan.map(([type, agent], i) => failingCall(type, { session_id: session, agent_name: agent }, i * 1000)));
    expect(await list({ session_id: session })).toHaveLength(7);
  });

  /** Every page of a list, `limit` at a time, following the Link header; `between` runs after each page. */
  async function pages(params: Record<string, string | number>, between: (page: InterruptionRecord[]) => Promise<void> = async () => {}) {
    const all: InterruptionRecord[] = [];
    let route: string | null = `/api/interruptions?${q(params)}`;
    while (route) {
      const reply: Reply<InterruptionRecord[]> = await get<InterruptionRecord[]>(route);
      expect(reply.status, reply.text).toBe(200);
      all.push(...reply.body);
      await between(reply.body);
      const next = nextLink(reply.headers);
      route = next ? routeOf(next, server.url) : null;
    }
    return all;
  }

  it("pages through every row once, in the order of the whole list", async () => {
    for (const s of sorts) {
      const whole = await list({ session_id: session, ...s, limit: 100 });
      expect(ids(await pages({ session_id: session, ...s, limit: 2 })), JSON.stringify(s)).toEqual(ids(whole));
    }
  });

  it("answers a cursor it did not issue with 400 naming it, whatever its key", async () => {
    const time = Buffer.from(`${ns(0)}.x`).toString("base64url");
    for (const key of ["1.5", "3000000000", "1e400", '"high"', "null"]) {
      const cursor = Buffer.from(`severity:${key}:${time}`).toString("base64url");
      expectError(await get(`/api/interruptions?${q({ session_id: session, sort: "severity", cursor })}`), 400, "cursor");
    }
    expectError(await get(`/api/interruptions?${q({ session_id: session, sort: "type", cursor: time })}`), 400, "cursor");
  });

  it("skips nothing when rows of a page leave the filter before the next is asked for (acknowledged from the inbox)", async () => {
    for (const s of sorts.slice(0, 4)) {
      // each sort on its own copy: reopen what the last one acknowledged
      for (const r of await list({ session_id: session, limit: 100 })) if (r.status !== "open") await post(`/api/interruptions/${r.interruption_id}/reopen`, {});
      const whole = await list({ session_id: session, status: "open", ...s, limit: 100 });
      const seen = await pages({ session_id: session, status: "open", ...s, limit: 2 }, async (page) => {
        for (const r of page) expect((await post(`/api/interruptions/${r.interruption_id}/acknowledge`, {})).status).toBe(200);
      });
      expect(ids(seen), JSON.stringify(s)).toEqual(ids(whole));
    }
  });
});

describe("lifecycle (SPEC §4)", () => {
  let bot: { token: string; name: string };

  beforeAll(async () => {
    const created = await createToken(server, uid("lifecycle-bot"), ["read", "triage"]);
    bot = { token: created.token, name: created.name };
  });

  it("goes open → acknowledged → resolved (with a note) → open, each step recorded", async () => {
    const r = await freshInterruption();
    expect(r).toMatchObject({ status: "open", resolved: false, acknowledged_by: null, resolved_by: null });
    const actor = `token:${bot.name}`;

    const acked = await post<InterruptionRecord>(`/api/interruptions/${r.interruption_id}/acknowledge`, {}, bot.token);
    expect(acked.status, acked.text).toBe(200);
    expect(acked.body).toMatchObject({ interruption_id: r.interruption_id, status: "acknowledged", resolved: false, acknowledged_by: actor });

    const resolved = await post(`/api/interruptions/${r.interruption_id}/resolve`, { note: "restarted the gateway" }, bot.token);
    expect(resolved.status).toBe(200);
    expect(resolved.text).toBe('{"status":"resolved"}');
    const afterResolve = await record(r.interruption_id);
    expect(afterResolve).toMatchObject({ status: "resolved", resolved: true, resolved_by: actor, acknowledged_by: actor });
    expect(afterResolve.resolved_at_ns).toMatch(/^\d{19}$/);

    expectError(await post(`/api/interruptions/${r.interruption_id}/acknowledge`, {}, bot.token), 409);
    expect((await record(r.interruption_id)).status).toBe("resolved");

    const reopened = await post<InterruptionRecord>(`/api/interruptions/${r.interruption_id}/reopen`, { note: "it came back" }, bot.token);
    expect(reopened.status, reopened.text).toBe(200);
    expect(reopened.body).toMatchObject({ status: "open", resolved: false, resolved_by: null, resolved_at_ns: null, acknowledged_by: null });

    const rows = await activity(r.interruption_id);
    expect(rows.map((a) => [a.actor, a.action, a.before?.status, a.after?.status, a.note])).toEqual([
      [actor, "acknowledge", "open", "acknowledged", null],
      [actor, "resolve", "acknowledged", "resolved", "restarted the gateway"],
      [actor, "reopen", "resolved", "open", "it came back"],
    ]);
    for (const a of rows) {
      expect(Object.keys(a).sort()).toEqual(["action", "actor", "after", "at_ns", "before", "note"]);
      expect(a.at_ns).toMatch(/^\d{19}$/);
    }
    for (let i = 1; i < rows.length; i++) expect(BigInt(rows[i].at_ns) >= BigInt(rows[i - 1].at_ns)).toBe(true);
  });

  it("assigns, unassigns and takes notes (201), all in the activity log", async () => {
    const r = await freshInterruption();
    const actor = `token:${bot.name}`;
    const assigned = await post<InterruptionRecord>(`/api/interruptions/${r.interruption_id}/assign`, { assignee: "alice" }, bot.token);
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body).toMatchObject({ assignee: "alice", status: "open" });
    const unassigned = await post<InterruptionRecord>(`/api/interruptions/${r.interruption_id}/assign`, { assignee: null }, bot.token);
    expect(unassigned.status).toBe(200);
    expect(unassigned.body.assignee).toBeNull();
    const noted = await post<InterruptionRecord>(`/api/interruptions/${r.interruption_id}/notes`, { note: "looked at the gateway logs" }, bot.token);
    expect(noted.status, noted.text).toBe(201);
    expect(noted.body.interruption_id).toBe(r.interruption_id);
    expectError(await post(`/api/interruptions/${r.interruption_id}/notes`, {}, bot.token), 400, /note/);
    expectError(await post(`/api/interruptions/${r.interruption_id}/notes`, { note: "" }, bot.token), 400, /note/);
    expectError(await post(`/api/interruptions/${r.interruption_id}/assign`, {}, bot.token), 400, /assignee/);

    const rows = await activity(r.interruption_id);
    expect(rows.map((a) => [a.actor, a.action, a.before?.assignee, a.after?.assignee, a.note])).toEqual([
      [actor, "assign", null, "alice", null],
      [actor, "assign", "alice", null, null],
      [actor, "note", null, null, "looked at the gateway logs"],
    ]);
    expect((await record(r.interruption_id)).status).toBe("open");
  });

  it("resolve is idempotent: the same answer twice, one activity row", async () => {
    const r = await freshInterruption();
    const first = await post(`/api/interruptions/${r.interruption_id}/resolve`, {});
    const second = await post(`/api/interruptions/${r.interruption_id}/resolve`, { note: "again" });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.text).toBe('{"status":"resolved"}');
    expect(second.text).toBe('{"status":"resolved"}');
    const rows = await activity(r.interruption_id);
    expect(rows.map((a) => a.action)).toEqual(["resolve"]);
    const after = await record(r.interruption_id);
    expect(after.resolved_by).toBe("token:dashboard token file");
  });

  it("resolves with no request body at all, as AgentSight clients send it", async () => {
    const r = await freshInterruption();
    const res = await server.api(`/api/interruptions/${r.interruption_id}/resolve`, { method: "POST" });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toBe('{"status":"resolved"}');
    expect((await record(r.interruption_id)).resolved).toBe(true);
  });

  it("10 concurrent resolves all answer 200 and write exactly one resolve row", async () => {
    const r = await freshInterruption();
    const replies = await Promise.all(Array.from({ length: 10 }, () => post(`/api/interruptions/${r.interruption_id}/resolve`, {})));
    expect(replies.map((x) => x.status)).toEqual(Array(10).fill(200));
    for (const x of replies) expect(x.text).toBe('{"status":"resolved"}');
    const rows = await activity(r.interruption_id);
    expect(rows.filter((a) => a.action === "resolve")).toHaveLength(1);
    expect(rows).toHaveLength(1);
  });

  it("answers 404 for every lifecycle route of an unknown id", async () => {
    const unknown = "fedcba9876543210fedcba9876543210";
    for (const [route, body] of [
      ["acknowledge", {}],
      ["reopen", {}],
      ["resolve", {}],
      ["assign", { assignee: "bob" }],
      ["notes", { note: "hello" }],
    ] as const) {
      const reply = await post(`/api/interruptions/${unknown}/${route}`, body);
      expectError(reply, 404);
      expect(reply.text).toBe('{"error":"Interruption not found"}');
    }
    expectError(await get(`/api/interruptions/${unknown}/activity`), 404);
  });
});

// -----------------------------------------------------------------------------------------------
describe("bulk actions", () => {
  it("acts on ids: {matched, changed}, repeating changes nothing", async () => {
    const [a, b] = [await freshInterruption(), await freshInterruption()];
    const unknown = "00000000000000000000000000000000";
    const first = await post<{ matched: number; changed: number }>("/api/interruptions/bulk", { ids: [a.interruption_id, b.interruption_id, unknown], action: "acknowledge" });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ matched: 2, changed: 2 });
    const again = await post<{ matched: number; changed: number }>("/api/interruptions/bulk", { ids: [a.interruption_id, b.interruption_id], action: "acknowledge" });
    expect(again.body).toEqual({ matched: 2, changed: 0 });
    expect((await record(a.interruption_id)).status).toBe("acknowledged");
    const assigned = await post<{ matched: number; changed: number }>("/api/interruptions/bulk", { ids: [a.interruption_id], action: "assign", assignee: "carol" });
    expect(assigned.body).toEqual({ matched: 1, changed: 1 });
    expect((await record(a.interruption_id)).assignee).toBe("carol");
    expect((await activity(a.interruption_id)).map((x) => x.action)).toEqual(["acknowledge", "assign"]);
  });

  it("acts on a filter: resolves the medium ones of one agent, and the count follows", async () => {
    const agentName = uid("BulkAgent");
    const sessionId = uid("bulk");
    const o = { agent_name: agentName, session_id: sessionId };
    await ingestCalls(server, [
      failingCall("rate_limit", o, 0),
      failingCall("rate_limit", o, 100),
      failingCall("safety_filter", o, 200),
      failingCall("service_unavailable", o, 300),
      failingCall("auth_error", o, 400),
    ]);
    const before = await get<CountBody>(`/api/interruptions/count?${q({ agent_name: agentName })}`);
    expect(before.body).toEqual({ total: 5, by_severity: severities({ medium: 3, high: 2 }) });
    const reply = await post<{ matched: number; changed: number }>("/api/interruptions/bulk", { filter: { agent_name: agentName, severity: "medium" }, action: "resolve", note: "provider incident" });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ matched: 3, changed: 3 });
    const after = await get<CountBody>(`/api/interruptions/count?${q({ agent_name: agentName })}`);
    expect(after.body).toEqual({ total: 2, by_severity: severities({ high: 2 }) });
    const resolved = await list({ agent_name: agentName, resolved: "true" });
    expect(resolved.map((r) => r.severity)).toEqual(["medium", "medium", "medium"]);
    const rows = await activity(resolved[0].interruption_id);
    expect(rows.map((a) => [a.action, a.note])).toEqual([["resolve", "provider incident"]]);
    // again: matched, nothing left to change
    const again = await post<{ matched: number; changed: number }>("/api/interruptions/bulk", { filter: { agent_name: agentName, severity: "medium" }, action: "resolve" });
    expect(again.body).toEqual({ matched: 3, changed: 0 });
  });

  it("rejects bad bodies with 400 naming the field", async () => {
    const r = await freshInterruption();
    expectError(await post("/api/interruptions/bulk", { ids: [r.interruption_id], action: "assign" }), 400, /assignee/);
    expectError(await post("/api/interruptions/bulk", { ids: [r.interruption_id], filter: { agent_name: "x" }, action: "resolve" }), 400, /ids|filter/);
    expectError(await post("/api/interruptions/bulk", { action: "resolve" }), 400, /ids|filter/);
    expectError(await post("/api/interruptions/bulk", { filter: { severity: "catastrophic" }, action: "resolve" }), 400, /filter\.severity/);
    expectError(await post("/api/interruptions/bulk", { filter: { start_ns: "20", end_ns: "10" }, action: "resolve" }), 400, /filter\.start_ns/);
    expectError(await post("/api/interruptions/bulk", { ids: [r.interruption_id], action: "explode" }), 400, /action/);
    expectError(await post("/api/interruptions/bulk", "{\"ids\": ["), 400, /JSON/i);
    // a filter of 40,000 fingerprints: before, a statement past what SQLite binds (32,766 values), 500
    const many = Array.from({ length: 40_000 }, (_, i) => `f${i}`).join(",");
    expectError(await post("/api/interruptions/bulk", { filter: { fingerprint: many }, action: "resolve" }), 400, /filter\.fingerprint: at most 5000 values/);
    expect((await record(r.interruption_id)).status).toBe("open");
  });
});

// -----------------------------------------------------------------------------------------------
describe("errors", () => {
  it("answers bad list parameters with 400 naming the parameter", async () => {
    const cases: [string, RegExp][] = [
      ["limit=abc", /limit/],
      ["limit=0", /limit/],
      ["limit=-5", /limit/],
      ["severity=catastrophic", /severity/],
      ["severity=high,catastrophic", /severity/],
      ["interruption_type=nope", /interruption_type/],
      [`start_ns=${nsAgo(1000)}&end_ns=${nsAgo(3_600_000)}`, /start_ns/],
      ["start_ns=yesterday", /start_ns/],
      ["resolved=maybe", /resolved/],
      ["status=closed", /status/],
      ["cursor=not-a-cursor", /cursor/],
      [`cursor=${Buffer.from("12.").toString("base64url")}`, /cursor/],
      [`cursor=${Buffer.from("99999999999999999999.x").toString("base64url")}`, /cursor/], // past 2^63 ns: before, 500
    ];
    for (const [query, name] of cases) {
      expectError(await get(`/api/interruptions?${query}`), 400, name);
    }
    for (const route of ["count", "stats", "session-counts", "agent-counts", "conversation-counts", "timeseries"]) {
      expectError(await get(`/api/interruptions/${route}?severity=catastrophic`), 400, /severity/);
      expectError(await get(`/api/interruptions/${route}?resolved=maybe`), 400, /resolved/);
    }
    expectError(await get("/api/interruptions/timeseries?buckets=0"), 400, /buckets/);
    expectError(await get("/api/interruptions/timeseries?group_by=agent"), 400, /group_by/);
    // one bucket over every time there is: its width (2^63 ns) does not fit a 64-bit column — before, 500
    const whole = await get<{ buckets: unknown[] }>(`/api/interruptions/timeseries?start_ns=0&end_ns=${2n ** 63n - 1n}&buckets=1`);
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.buckets).toHaveLength(1);
    expect((await get(`/api/interruptions/groups?start_ns=0&end_ns=${2n ** 63n - 1n}&buckets=1`)).status).toBe(200);
  });

  it("takes every value of a list parameter given more than once; a one-value parameter given twice is a 400 naming it", async () => {
    // before, only the last value counted: severity=critical&severity=high listed only the high ones
    const agent = uid("RepeatAgent");
    await ingestCalls(server, [failingCall("auth_error", { agent_name: agent }), failingCall("rate_limit", { agent_name: agent }), failingCall("llm_error", { agent_name: agent })]);
    const types = async (query: string) => (await get<InterruptionRecord[]>(`/api/interruptions?agent_name=${agent}&${query}`)).body.map((r) => r.interruption_type).sort();
    expect(await types("interruption_type=auth_error&interruption_type=rate_limit")).toEqual(["auth_error", "rate_limit"]);
    expect(await types("interruption_type=auth_error,llm_error&interruption_type=rate_limit")).toEqual(["auth_error", "llm_error", "rate_limit"]);
    expect((await get<CountBody>(`/api/interruptions/count?agent_name=${agent}&agent_name=${uid("other")}&interruption_type=auth_error&interruption_type=rate_limit`)).body.total).toBe(2);
    for (const query of ["limit=1&limit=2", `session_id=a&session_id=b`, "q=x&q=y"]) {
      const name = query.split("=")[0];
      expectError(await get(`/api/interruptions?${query}`), 400, new RegExp(`^${name}: given more than once`));
    }
  });

  it("answers malformed JSON bodies with 400", async () => {
    const r = await freshInterruption();
    for (const route of [`/api/interruptions/${r.interruption_id}/notes`, `/api/interruptions/${r.interruption_id}/assign`, "/api/ingest/calls", "/api/ingest/events", "/api/tokens"]) {
      expectError(await post(route, "{\"note\": oops"), 400, /JSON/i);
    }
  });

  it("answers unknown resources with 404 JSON", async () => {
    expectError(await get(`/api/sessions/${uid("missing")}`), 404);
    expectError(await get(`/api/calls/${uid("missing")}`), 404);
    expectError(await request(server, "DELETE", `/api/tokens/${uid("missing")}`), 404);
  });

  it("never puts a stack trace or a file path in an error body", async () => {
    const replies = [
      await get("/api/interruptions?limit=abc"),
      await get("/api/interruptions?cursor=%FF%FE"),
      await get(`/api/interruptions?start_ns=${"9".repeat(20)}`),
      await post("/api/ingest/calls", "[{]"),
      await post("/api/ingest/calls", [{ call_id: 42 }]),
      await post("/api/ingest/events", [{ kind: "nope" }]),
      await post("/api/interruptions/bulk", { ids: [], action: "resolve" }),
      await post("/api/interruptions/bulk", { ids: "abc", action: "resolve" }),
      await post("/api/tokens", { name: { $gt: "" }, scopes: "admin" }),
      await get("/api/interruptions", "not-a-real-token"),
      await get(`/api/interruptions/${"x".repeat(5000)}`),
      await post(`/api/interruptions/${"x".repeat(100)}/assign`, { assignee: 5 }),
    ];
    for (const reply of replies) {
      expect(reply.status, reply.text).toBeGreaterThanOrEqual(400);
      expect(reply.status, reply.text).toBeLessThan(500);
      expectError(reply, reply.status);
    }
    for (const reply of replies) expectNoStack(reply.text);
  });
});

// -----------------------------------------------------------------------------------------------
describe("time series and OpenAPI", () => {
  type Series = { start_ns: string; end_ns: string; bucket_ns: string; group_by: string; buckets: { start_ns: string; counts: Record<string, number> }[] };
  const sum = (s: Series) => s.buckets.reduce((n, b) => n + Object.values(b.counts).reduce((x, y) => x + y, 0), 0);

  it("sums of the buckets equal the list count for the same window", async () => {
    const agentName = uid("SeriesAgent");
    const sessionId = uid("series");
    const o = { agent_name: agentName, session_id: sessionId };
    await ingestCalls(server, [
      failingCall("rate_limit", o, -1_800_000),
      failingCall("service_unavailable", o, -600_000),
      failingCall("auth_error", o, 0),
      failingCall("llm_error", o, 60_000),
      failingCall("rate_limit", o, 120_000),
    ]);
    const window = { start_ns: nsAgo(3 * 3_600_000), end_ns: nsAgo(0) };
    for (const buckets of [1, 7, 48]) {
      const reply = await get<Series>(`/api/interruptions/timeseries?${q({ ...window, agent_name: agentName, buckets, group_by: "severity" })}`);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.buckets).toHaveLength(buckets);
      expect(reply.body.group_by).toBe("severity");
      expect(reply.body.start_ns).toBe(window.start_ns);
      expect(reply.body.end_ns).toBe(window.end_ns);
      expect(sum(reply.body)).toBe(5);
      const totals: Record<string, number> = {};
      for (const b of reply.body.buckets) for (const [k, v] of Object.entries(b.counts)) totals[k] = (totals[k] ?? 0) + v;
      expect(totals).toEqual({ medium: 2, high: 3 });
    }
    const byType = await get<Series>(`/api/interruptions/timeseries?${q({ ...window, agent_name: agentName, buckets: 5, group_by: "type" })}`);
    const types = new Set(byType.body.buckets.flatMap((b) => Object.keys(b.counts)));
    expect([...types].sort()).toEqual(["auth_error", "llm_error", "rate_limit", "service_unavailable"]);
    expect(sum(byType.body)).toBe(5);

    // the whole database over the same window, against the list
    const everything = await get<Series>(`/api/interruptions/timeseries?${q({ ...window, buckets: 24 })}`);
    expect(sum(everything.body)).toBe((await list({ ...window, limit: 5000 })).length);
  });

  it("applies q with the same meaning as the list route", async () => {
    const agentName = uid("SeriesQAgent");
    const c = failingCall("llm_error", { agent_name: agentName, session_id: uid("series-q") });
    await ingestCalls(server, [c]);
    const window = { start_ns: nsAgo(3 * 3_600_000), end_ns: nsAgo(0) };
    const listed = await list({ ...window, q: c.call_id });
    expect(listed).toHaveLength(1);
    const series = await get<Series>(`/api/interruptions/timeseries?${q({ ...window, q: c.call_id, buckets: 4 })}`);
    expect(series.status).toBe(200);
    expect(sum(series.body)).toBe(listed.length);
  });

  type OpenApi = { openapi: string; paths: Record<string, Record<string, { security?: unknown[]; "x-required-scope"?: string; responses: Record<string, unknown> }>> };

  /** Every route handler the app has: "METHOD /api/path/{id}" from app/api/**\/route.ts (next-auth's and the 404 fallback aside). */
  function appRoutes(): string[] {
    const root = path.resolve(__dirname, "../../app");
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          // next-auth's own endpoints, and the fallback that answers any unknown path with a 404
          if (entry.name !== "[...nextauth]" && entry.name !== "[...path]") walk(full);
        }
        else if (/^route\.(ts|tsx|js)$/.test(entry.name)) {
          const route = "/" + path.relative(root, dir).split(path.sep).map((s) => s.replace(/^\[(\w+)\]$/, "{$1}")).join("/");
          const source = fs.readFileSync(full, "utf8");
          for (const m of source.matchAll(/export\s+(?:const|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g)) found.push(`${m[1]} ${route}`);
        }
      }
    };
    walk(path.join(root, "api"));
    return found.sort();
  }

  it("GET /api/openapi.json (no auth) lists every route with its scope", async () => {
    const reply = await request<OpenApi>(server, "GET", "/api/openapi.json", undefined, null);
    expect(reply.status).toBe(200);
    const doc = reply.body;
    expect(doc.openapi).toMatch(/^3\./);
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort();
    const declared = contracts().map((c) => `${c.method} ${c.path}`).sort();
    expect(documented).toEqual(declared);
    expect(documented).toEqual(appRoutes());
    for (const c of contracts()) {
      const op = doc.paths[c.path][c.method.toLowerCase()];
      if (c.scope) {
        expect(op["x-required-scope"], `${c.method} ${c.path}`).toBe(c.scope);
        expect(op.security).toEqual([{ bearer: [] }]);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["401", "403"]));
      } else {
        expect(op.security, `${c.method} ${c.path}`).toEqual([]);
      }
    }
    // the AgentSight routes and SightDesk's own, by name
    for (const route of [
      "GET /api/interruptions", "GET /api/interruptions/count", "GET /api/interruptions/stats", "GET /api/interruptions/session-counts",
      "GET /api/interruptions/conversation-counts", "GET /api/interruptions/{id}", "POST /api/interruptions/{id}/resolve",
      "GET /api/sessions/{id}/interruptions", "GET /api/conversations/{id}/interruptions", "POST /api/interruptions/bulk",
      "POST /api/tokens", "GET /api/tokens", "DELETE /api/tokens/{id}", "GET /api/health",
    ]) {
      expect(documented).toContain(route);
    }
  });

  it("health needs no token", async () => {
    const reply = await request(server, "GET", "/api/health", undefined, null);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: "ok" });
  });
});
