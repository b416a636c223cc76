// Sessions and trajectories over REST against the real server: the session list with its open
// interruption counts and paging, a session's conversations and turns, its calls in time order
// with interruption markers, and one call's messages and tool-call balance.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistant, call, ns, toolCall, toolResponse, uid, user } from "./support/payloads";
import {
  expectError,
  failingCall,
  ingestCalls,
  ingestEvents,
  nextLink,
  request,
  routeOf,
  sessionInterruptions,
  severities,
  type InterruptionRecord,
  type Reply,
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

type OpenCounts = { total: number; by_severity: Record<string, number>; types: TypeCount[] };
type SessionRecord = {
  session_id: string; agent_name: string | null; pid: number | null; host: string | null; process_name: string | null;
  first_seen_ns: string; last_seen_ns: string; call_count: number; conversation_count: number; input_tokens: number;
  output_tokens: number; model: string | null; exited_at_ns: string | null; exit_code: number | null; exit_signal: string | null;
  oom: boolean | null; open_interruptions: OpenCounts;
};
type Turn = { turn_id: string; first_seen_ns: string; last_seen_ns: string; call_count: number; end_reason: string | null; ended_at_ns: string | null };
type Conversation = { conversation_id: string; first_seen_ns: string; last_seen_ns: string; call_count: number; bricked_since_call_id: string | null; turns: Turn[] };
type SessionDetail = SessionRecord & { conversations: Conversation[] };
type Marker = { interruption_id: string; interruption_type: string; severity: string; status: string };
type CallSummary = {
  call_id: string; conversation_id: string | null; turn_id: string | null; model: string | null; start_ns: string; end_ns: string | null;
  duration_ns: number | string | null; status_code: number | null; error: string | null; input_tokens: number | null; output_tokens: number | null;
  finish_reasons: string[]; interruptions: Marker[];
};
type Message = { role: string; parts: unknown[]; finish_reason?: string };
type ToolBalance = { dangling: string[]; orphan: string[]; duplicate: string[]; series: number[]; safeCuts: number[]; balanced: boolean };
type CallDetail = CallSummary & {
  system_instructions: unknown[]; input_messages: Message[]; output_messages: Message[]; tool_balance: ToolBalance;
  tool_calls: { tool_call_id: string; name: string | null; response: string | null; success: boolean | null }[];
};

const SESSION_KEYS = [
  "agent_name", "call_count", "conversation_count", "exit_code", "exit_signal", "exited_at_ns", "first_seen_ns", "host", "input_tokens",
  "last_seen_ns", "model", "oom", "open_interruptions", "output_tokens", "pid", "process_name", "session_id",
];

const roleAndParts = (messages: Message[]) => messages.map((m) => ({ role: m.role, parts: m.parts }));

// -----------------------------------------------------------------------------------------------
describe("GET /api/sessions", () => {
  const agent = uid("ListAgent");
  const [l1, l2, l3] = [uid("list-1"), uid("list-2"), uid("list-3")];

  beforeAll(async () => {
    const o = { agent_name: agent };
    await ingestCalls(server, [
      failingCall("rate_limit", { ...o, session_id: l1 }, 10_000),
      failingCall("service_unavailable", { ...o, session_id: l1 }, 10_100),
      failingCall("auth_error", { ...o, session_id: l1 }, 10_200),
      call({ ...o, session_id: l1 }, 10_300),
      call({ ...o, session_id: l2 }, 30_000),
      failingCall("llm_error", { ...o, session_id: l3 }, 20_000),
    ]);
    const [resolvedOne] = await sessionInterruptions(server, l3);
    expect((await request(server, "POST", `/api/interruptions/${resolvedOne.interruption_id}/resolve`, {})).status).toBe(200);
  });

  async function sessions(query: string): Promise<SessionRecord[]> {
    const reply = await get<SessionRecord[]>(`/api/sessions?${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  }

  it("lists sessions most recently active first, with open interruption counts per severity", async () => {
    const rows = await sessions(`agent_name=${agent}`);
    expect(rows.map((s) => s.session_id)).toEqual([l2, l3, l1]);
    for (const s of rows) expect(Object.keys(s).sort()).toEqual(SESSION_KEYS);
    const first = rows.find((s) => s.session_id === l1)!;
    expect(first).toMatchObject({ agent_name: agent, pid: 4242, host: "test-host", call_count: 4, conversation_count: 4, model: "gpt-4o", input_tokens: 4800, output_tokens: 200 });
    expect(first.first_seen_ns).toBe(ns(10_000));
    expect(first.last_seen_ns).toBe(ns(10_300 + 800));
    expect(first.open_interruptions.total).toBe(3);
    expect(first.open_interruptions.by_severity).toEqual(severities({ high: 2, medium: 1 }));
    expect([...first.open_interruptions.types].sort((a, b) => a.interruption_type.localeCompare(b.interruption_type))).toEqual([
      { interruption_type: "auth_error", severity: "high", count: 1 },
      { interruption_type: "rate_limit", severity: "medium", count: 1 },
      { interruption_type: "service_unavailable", severity: "high", count: 1 },
    ]);
    // a resolved interruption is not open; a clean session has none
    for (const id of [l2, l3]) {
      expect(rows.find((s) => s.session_id === id)!.open_interruptions).toEqual({ total: 0, by_severity: severities(), types: [] });
    }
  });

  it("filters with_open=true and by agent_name", async () => {
    expect((await sessions(`agent_name=${agent}&with_open=true`)).map((s) => s.session_id)).toEqual([l1]);
    expect(await sessions(`agent_name=${uid("NobodyAgent")}`)).toEqual([]);
    const both = await sessions(`agent_name=${agent},${uid("NobodyAgent")}`);
    expect(both.map((s) => s.session_id)).toEqual([l2, l3, l1]);
    const everyone = await sessions("with_open=true&limit=5000");
    expect(everyone.some((s) => s.session_id === l1)).toBe(true);
    expect(everyone.some((s) => s.session_id === l2 || s.session_id === l3)).toBe(false);
    for (const s of everyone) expect(s.open_interruptions.total).toBeGreaterThan(0);
  });

  it("lists only the sessions named by session_id (the overview names its top sessions so)", async () => {
    expect((await sessions(`session_id=${l1},${l3},${uid("unknown")}`)).map((s) => s.session_id)).toEqual([l3, l1]);
    expect((await sessions(`session_id=${l2}&with_open=true`)).map((s) => s.session_id)).toEqual([]);
    expect((await sessions(`session_id=${l1}&with_open=true`)).map((s) => s.session_id)).toEqual([l1]);
  });

  it("pages with a Link rel=\"next\" header, without overlap", async () => {
    const first = await get<SessionRecord[]>(`/api/sessions?agent_name=${agent}&limit=2`);
    expect(first.body.map((s) => s.session_id)).toEqual([l2, l3]);
    const link = nextLink(first.headers);
    expect(link).not.toBeNull();
    const second = await get<SessionRecord[]>(routeOf(link!, server.url));
    expect(second.status).toBe(200);
    expect(second.body.map((s) => s.session_id)).toEqual([l1]);
    expect(nextLink(second.headers)).toBeNull();
  });

  it("lists more sessions than SQLite binds values in one query (with_open, a page of 1,000), and pages ids with dots", async () => {
    const many = uid("ManyAgent");
    const ids = Array.from({ length: 1_100 }, (_, k) => `${many}.s.${k}`); // dots in ids, as a host name gives them
    await ingestCalls(server, ids.map((session_id, k) => failingCall("llm_error", { agent_name: many, session_id }, 40_000 + k)));
    // before, 500: the open sessions' ids (and a page's, for its counts) went into one query as
    // bound values, over the 999 Prisma allows an ordered or grouped read on SQLite
    const open = await sessions(`agent_name=${many}&with_open=true&limit=5000`);
    expect(open.map((s) => s.session_id)).toEqual([...ids].reverse());
    const page = await sessions(`agent_name=${many}&limit=1000`);
    expect(page).toHaveLength(1_000);
    expect(page.every((s) => s.open_interruptions.total === 1 && s.conversation_count === 1)).toBe(true);
    // the cursor keeps the whole id (before, it was cut at its first dot: the next page began elsewhere)
    const next = await get<SessionRecord[]>(routeOf(nextLink((await get<SessionRecord[]>(`/api/sessions?agent_name=${many}&limit=1000`)).headers)!, server.url));
    expect(next.body.map((s) => s.session_id)).toEqual(ids.slice(0, 100).reverse());
  }, 60_000);

  it("rejects bad parameters with 400 naming them", async () => {
    expectError(await get("/api/sessions?with_open=maybe"), 400, /with_open/);
    expectError(await get("/api/sessions?limit=abc"), 400, /limit/);
    expectError(await get("/api/sessions?cursor=nonsense"), 400, /cursor/);
    expectError(await get(`/api/sessions?cursor=${Buffer.from("99999999999999999999.x").toString("base64url")}`), 400, /cursor/); // past 2^63 ns: before, 500
  });
});

// -----------------------------------------------------------------------------------------------
describe("a session's trajectory", () => {
  const agent = uid("TrajectoryAgent");
  const sessionId = uid("trajectory");
  const c1 = uid("conv-fix");
  const c2 = uid("conv-deploy");
  const t1 = uid("turn-fix");
  const t2 = uid("turn-lint");
  const system = [{ type: "text", content: "You are a careful coding agent." }];
  const u1 = user("Fix the failing test in utils.ts");
  const tc1 = toolCall("call_1", "bash", { cmd: "npm test", cwd: "/repo" });
  const tr1 = toolResponse("call_1", "1 failing: utils.test.ts > sums");
  const a1 = assistant("I fixed the off-by-one in utils.ts.");
  const u2 = user("Now run the linter");
  const o = { agent_name: agent, session_id: sessionId, system_instructions: system };

  const k1 = call({ ...o, conversation_id: c1, turn_id: t1, input_messages: [u1], output_messages: [{ ...tc1, finish_reason: "tool_calls" }], finish_reasons: ["tool_calls"] }, 0);
  const k2 = call({ ...o, conversation_id: c1, turn_id: t1, input_messages: [u1, tc1, tr1], output_messages: [{ ...a1, finish_reason: "stop" }] }, 2000);
  const k3 = failingCall("rate_limit", { ...o, conversation_id: c1, turn_id: t2, input_messages: [u1, tc1, tr1, a1, u2] }, 4000);
  const k5 = failingCall("llm_error", {
    ...o,
    conversation_id: c2,
    status_code: 400,
    error: "tool_use ids were found without tool_result blocks immediately after",
    input_messages: [user("Deploy it"), toolCall("call_9", "bash", { cmd: "./deploy.sh" }), user("Are you done?")],
  }, 5000);
  const k4 = call({ ...o, conversation_id: c1, turn_id: t2, input_messages: [u1, tc1, tr1, a1, u2], output_messages: [assistant("Lint is clean.")] }, 6000);
  const inTimeOrder = [k1, k2, k3, k5, k4];

  beforeAll(async () => {
    // out of order across batches, as a forwarder may send them
    await ingestCalls(server, [k3, k5]);
    await ingestCalls(server, [k4, k2, k1]);
    await ingestEvents(server, [{ kind: "turn_end", session_id: sessionId, conversation_id: c1, turn_id: t1, reason: "completed", at_ns: ns(3000) }]);
  });

  it("GET /api/sessions/{id}: the session with its conversations, turns and end_reason", async () => {
    const reply = await get<SessionDetail>(`/api/sessions/${sessionId}`);
    expect(reply.status, reply.text).toBe(200);
    const s = reply.body;
    expect(Object.keys(s).sort()).toEqual([...SESSION_KEYS, "conversations"].sort());
    expect(s).toMatchObject({ session_id: sessionId, agent_name: agent, call_count: 5, conversation_count: 2, first_seen_ns: ns(0), last_seen_ns: ns(6800) });
    expect(s.open_interruptions.total).toBe(2);
    expect(s.open_interruptions.by_severity).toEqual(severities({ high: 1, medium: 1 }));
    expect(s.conversations.map((c) => c.conversation_id)).toEqual([c1, c2]);
    const [fix, deploy] = s.conversations;
    expect(fix).toMatchObject({ call_count: 4, first_seen_ns: ns(0), last_seen_ns: ns(6800), bricked_since_call_id: null });
    expect(fix.turns.map((t) => [t.turn_id, t.call_count, t.end_reason, t.ended_at_ns])).toEqual([
      [t1, 2, "completed", ns(3000)],
      [t2, 2, null, null],
    ]);
    expect(deploy.call_count).toBe(1);
    expect(deploy.bricked_since_call_id).toBe(k5.call_id);
    expect(deploy.turns).toHaveLength(1);
    expect(deploy.turns[0]).toMatchObject({ call_count: 1, end_reason: null });
  });

  it("GET /api/sessions/{id}/calls: time order, with interruption markers on the right calls", async () => {
    const reply = await get<CallSummary[]>(`/api/sessions/${sessionId}/calls`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.map((c) => c.call_id)).toEqual(inTimeOrder.map((c) => c.call_id));
    for (const c of inTimeOrder) expect(reply.text).toContain(`"start_ns":${c.start_ns}`);
    const markers = Object.fromEntries(reply.body.map((c) => [c.call_id, c.interruptions.map((m) => [m.interruption_type, m.severity, m.status])]));
    expect(markers).toEqual({
      [k1.call_id]: [],
      [k2.call_id]: [],
      [k3.call_id]: [["rate_limit", "medium", "open"]],
      [k5.call_id]: [["state_machine_error", "high", "open"]],
      [k4.call_id]: [],
    });
    const byId = new Map(reply.body.map((c) => [c.call_id, c]));
    expect(byId.get(k1.call_id)).toMatchObject({ conversation_id: c1, turn_id: t1, status_code: 200, finish_reasons: ["tool_calls"], duration_ns: 800_000_000 });
    expect(byId.get(k3.call_id)).toMatchObject({ status_code: 429, error: "Too Many Requests", turn_id: t2 });
    const interruptions = await sessionInterruptions(server, sessionId);
    const marker = byId.get(k3.call_id)!.interruptions[0];
    expect(interruptions.find((r: InterruptionRecord) => r.interruption_id === marker.interruption_id)?.call_id).toBe(k3.call_id);
  });

  it("pages a session's calls with a Link rel=\"next\" header (`after`), and filters by conversation", async () => {
    const seen: string[] = [];
    let route: string | null = `/api/sessions/${sessionId}/calls?limit=2`;
    let pages = 0;
    while (route && pages++ < 10) {
      const reply: Reply<CallSummary[]> = await get<CallSummary[]>(route);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.length).toBeLessThanOrEqual(2);
      seen.push(...reply.body.map((c) => c.call_id));
      const link = nextLink(reply.headers);
      // a full page links on, from its last call; a short one is the last
      if (reply.body.length === 2) expect(link).toContain(`after=${encodeURIComponent(`${reply.body[1].start_ns}.${reply.body[1].call_id}`)}`);
      else expect(link).toBeNull();
      route = link && routeOf(link, server.url);
    }
    expect(seen).toEqual(inTimeOrder.map((c) => c.call_id));
    expect(pages).toBe(Math.floor(inTimeOrder.length / 2) + 1);
    const deploy = await get<CallSummary[]>(`/api/sessions/${sessionId}/calls?conversation_id=${c2}`);
    expect(deploy.body.map((c) => c.call_id)).toEqual([k5.call_id]);
    expectError(await get(`/api/sessions/${sessionId}/calls?after=yesterday`), 400, /after/);
    expectError(await get(`/api/sessions/${sessionId}/calls?after=99999999999999999999.c`), 400, /after/); // past 2^63: not a database error
    expectError(await get(`/api/sessions/${sessionId}/calls?limit=0`), 400, /limit/);
  });

  it("GET /api/calls/{id}: a tool's answer whose credential-named keys hold no string reads back (before, 500)", async () => {
    const answer = { nextPageToken: null, items: [1, 2], token: 12345678901 };
    const c = call({ agent_name: agent, session_id: uid("paged"), input_messages: [u1, { ...tc1, finish_reason: "tool_calls" }, toolResponse("call_1", answer)] }, 9_000);
    await ingestCalls(server, [c]);
    const reply = await get<CallDetail>(`/api/calls/${c.call_id}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.input_messages[2].parts).toEqual([expect.objectContaining({ response: { nextPageToken: null, items: [1, 2], token: "[redacted]" } })]);
  });

  it("GET /api/calls/{id}: messages reconstructed exactly as sent", async () => {
    const reply = await get<CallDetail>(`/api/calls/${k2.call_id}`);
    expect(reply.status, reply.text).toBe(200);
    const d = reply.body;
    expect(d.call_id).toBe(k2.call_id);
    expect(d.input_messages).toEqual([u1, tc1, tr1]);
    expect(roleAndParts(d.output_messages)).toEqual([a1]);
    expect(d.system_instructions).toEqual(system);
    expect(d.tool_balance).toMatchObject({ dangling: [], orphan: [], duplicate: [], balanced: true });
    expect(d.interruptions).toEqual([]);

    const first = (await get<CallDetail>(`/api/calls/${k1.call_id}`)).body;
    expect(first.input_messages).toEqual([u1]);
    expect(roleAndParts(first.output_messages)).toEqual([tc1]);

    const last = (await get<CallDetail>(`/api/calls/${k4.call_id}`)).body;
    expect(last.input_messages).toEqual([u1, tc1, tr1, a1, u2]);
    expect(roleAndParts(last.output_messages)).toEqual([assistant("Lint is clean.")]);
    const failed = (await get<CallDetail>(`/api/calls/${k3.call_id}`)).body;
    expect(failed.input_messages).toEqual([u1, tc1, tr1, a1, u2]);
    expect(failed.output_messages).toEqual([]);
    expect(failed.interruptions.map((m) => m.interruption_type)).toEqual(["rate_limit"]);
  });

  it("GET /api/calls/{id}: a tool call belongs to the call whose output made it, whatever the arrival order", async () => {
    // k1 (which made call_1) arrived after k3, whose history already carried call_1
    const toolCallsOf = async (id: string) => (await get<CallDetail>(`/api/calls/${id}`)).body.tool_calls.map((t) => t.tool_call_id);
    const made = (await get<CallDetail>(`/api/calls/${k1.call_id}`)).body.tool_calls;
    expect(made.map((t) => t.tool_call_id)).toEqual(["call_1"]);
    expect(made[0]).toMatchObject({ name: "bash", response: "1 failing: utils.test.ts > sums", success: true });
    for (const k of [k2, k3, k4]) expect(await toolCallsOf(k.call_id)).toEqual([]);
  });

  it("GET /api/calls/{id}: the dangling tool call of a bricked history", async () => {
    const reply = await get<CallDetail>(`/api/calls/${k5.call_id}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.tool_balance.dangling).toEqual(["call_9"]);
    expect(reply.body.tool_balance.balanced).toBe(false);
    expect(reply.body.input_messages).toEqual(k5.input_messages);
    expect(reply.body.interruptions.map((m) => m.interruption_type)).toEqual(["state_machine_error"]);
    const [finding] = (await sessionInterruptions(server, sessionId)).filter((r) => r.call_id === k5.call_id);
    expect(JSON.parse(finding.detail)).toMatchObject({ rule: "unbalanced_tool_calls", dangling: ["call_9"] });
  });

  it("answers 404 for an unknown session or call", async () => {
    const session = await get(`/api/sessions/${uid("no-such-session")}`);
    expectError(session, 404, /session/i);
    const c = await get(`/api/calls/${uid("no-such-call")}`);
    expectError(c, 404, /call/i);
  });

  it("needs a token", async () => {
    expectError(await get(`/api/sessions/${sessionId}`, null), 401);
    expectError(await get(`/api/sessions/${sessionId}/calls`, null), 401);
    expectError(await get(`/api/calls/${k1.call_id}`, null), 401);
    expectError(await get("/api/sessions", null), 401);
  });
});
