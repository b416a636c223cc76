// Ingest against the real server and a real database (SQLite, or PostgreSQL in CI): auth, validation, idempotency,
// atomic batches, limits, secrets, and detection end to end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonExact } from "@/lib/wire/json";
import { assistant, call, json, ns, toolCall, toolResponse, uid, user } from "./support/payloads";
import { databaseBytes, startServer, type TestServer } from "./support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

type Record = { interruption_id: string; interruption_type: string; detail: string; occurred_at_ns: number; call_id: string | null; status: string; occurrences: number; resolved: boolean };

async function post(route: string, body: unknown, token?: string | null) {
  const res = await server.api(route, { method: "POST", body: typeof body === "string" ? body : json(body), token });
  return { status: res.status, body: (await res.json()) as { [k: string]: unknown } };
}

async function sessionInterruptions(sessionId: string): Promise<Record[]> {
  const res = await server.api(`/api/sessions/${encodeURIComponent(sessionId)}/interruptions`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record[];
}

describe("auth", () => {
  it("health needs no token and returns no data", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("rejects missing, wrong and URL tokens with 401", async () => {
    expect((await post("/api/ingest/calls", call(), null)).status).toBe(401);
    expect((await post("/api/ingest/calls", call(), "0".repeat(64))).status).toBe(401);
    const res = await fetch(`${server.url}/api/sessions/s-default/interruptions?token=${server.token}`);
    expect(res.status).toBe(401);
    expect((await server.api("/api/sessions/s-default/interruptions", { token: null })).status).toBe(401);
  });
});

describe("validation and limits", () => {
  it("rejects malformed JSON with 400", async () => {
    const res = await post("/api/ingest/calls", "{not json");
    expect(res.status).toBe(400);
    expect(String(res.body.error)).toMatch(/Malformed JSON/);
  });

  it("rejects a batch with one invalid item whole, naming the item and field", async () => {
    const sessionId = uid("atomic");
    const good = call({ session_id: sessionId, status_code: 500, error: "boom" });
    const bad = call({ session_id: sessionId, input_messages: [{ role: "user", parts: [{ type: "text" }] }] });
    const res = await post("/api/ingest/calls", [good, bad]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/item 1: input_messages\[0\]\.parts\[0\]\.content/);
    expect(await sessionInterruptions(sessionId)).toEqual([]);
    // the good item alone is accepted afterwards: nothing of the failed batch was half-written
    expect((await post("/api/ingest/calls", [good])).body).toMatchObject({ accepted: 1 });
  });

  it("answers 413 to a body over 10 MiB", async () => {
    const huge = call({ input_messages: [user("x".repeat(11 * 1024 * 1024))] });
    expect((await post("/api/ingest/calls", huge)).status).toBe(413);
  });

  it("answers 400 to a body of millions of empty objects before parsing it", async () => {
    const res = await post("/api/ingest/calls", `[${Array(3_000_000).fill("{}").join(",")}]`); // 9 MB: under the size limit
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/more than 1,000,000 objects and arrays/);
  });

  it("names a bad field of an event", async () => {
    const res = await post("/api/ingest/events", { kind: "turn_end", session_id: "s", turn_id: "t", reason: "exploded", at_ns: ns(0) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/reason/);
  });
});

describe("storage", () => {
  it("keeps 19-digit nanoseconds exact", async () => {
    const sessionId = uid("exact");
    const res = await server.api("/api/ingest/calls", {
      method: "POST",
      body: `{"call_id":"${uid("c")}","session_id":"${sessionId}","start_ns":1767268800123456789,"end_ns":1767268801987654321,"status_code":503,"error":"overloaded"}`,
    });
    expect(res.status).toBe(200);
    const text = await (await server.api(`/api/sessions/${sessionId}/interruptions`)).text();
    expect(text).toContain('"occurred_at_ns":1767268801987654321');
  });

  it("replays idempotently", async () => {
    const sessionId = uid("replay");
    const batch = [call({ session_id: sessionId, status_code: 429, error: "Too Many Requests" }), call({ session_id: sessionId }, 1000)];
    expect((await post("/api/ingest/calls", batch)).body).toMatchObject({ accepted: 2, duplicates: 0, interruptions: 1 });
    expect((await post("/api/ingest/calls", batch)).body).toMatchObject({ accepted: 0, duplicates: 2, interruptions: 0 });
    const events = [{ kind: "process_exit", pid: 4242, agent_name: "TestAgent", host: "test-host", session_id: sessionId, at_ns: ns(5000), oom: true }];
    await post("/api/ingest/events", events);
    await post("/api/ingest/events", events);
    const types = (await sessionInterruptions(sessionId)).map((r) => r.interruption_type);
    expect(types).toEqual(["rate_limit", "agent_crash"]);
  });

  it("survives concurrent overlapping batches without duplicates", async () => {
    const sessionId = uid("concurrent");
    const calls = Array.from({ length: 20 }, (_, i) => call({ session_id: sessionId, status_code: 500, error: "internal" }, i * 1000));
    const results = await Promise.all([post("/api/ingest/calls", calls), post("/api/ingest/calls", calls.slice(5)), post("/api/ingest/calls", calls.slice(0, 10))]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const llmErrors = (await sessionInterruptions(sessionId)).filter((r) => r.interruption_type === "llm_error");
    expect(llmErrors).toHaveLength(20);
  });

  it("a SIGTERM is a crash only mid-turn of a session that reports turn ends", async () => {
    const exit = (sessionId: string, pid: number) => ({ kind: "process_exit", pid, agent_name: "TestAgent", host: "test-host", session_id: sessionId, at_ns: ns(60_000), signal: "SIGTERM" });
    const crashes = async (sessionId: string) => (await sessionInterruptions(sessionId)).filter((r) => r.interruption_type === "agent_crash").map((r) => JSON.parse(r.detail).reason);
    // calls alone (the proxy, OTLP): no turn ever ends, so none is "mid-turn" — before, killed_mid_turn
    const silent = uid("sigterm-silent");
    await post("/api/ingest/calls", [call({ session_id: silent, turn_id: uid("turn") })]);
    await post("/api/ingest/events", [exit(silent, 4301)]);
    expect(await crashes(silent)).toEqual([]);
    // turn ends reported, the last turn open: killed mid-turn
    const reporting = uid("sigterm-reporting");
    const [t1, t2] = [uid("turn"), uid("turn")];
    await post("/api/ingest/calls", [call({ session_id: reporting, turn_id: t1 }), call({ session_id: reporting, turn_id: t2 }, 2000)]);
    await post("/api/ingest/events", [{ kind: "turn_end", session_id: reporting, turn_id: t1, reason: "completed", at_ns: ns(1500) }, exit(reporting, 4302)]);
    expect(await crashes(reporting)).toEqual(["killed_mid_turn"]);
  });

  it("keeps a process's exit that arrives before its calls", async () => {
    const sessionId = uid("exit-first");
    const exit = { kind: "process_exit", pid: 4244, agent_name: "TestAgent", host: "test-host", session_id: sessionId, at_ns: ns(60_000), exit_code: 3 };
    expect((await post("/api/ingest/events", [exit])).status).toBe(200);
    const calls = Array.from({ length: 3 }, (_, i) => call({ session_id: sessionId, input_tokens: 10 }, i * 1000));
    expect((await post("/api/ingest/calls", calls)).status).toBe(200);
    const text = await (await server.api(`/api/sessions/${sessionId}`)).text();
    expect(JSON.parse(text)).toMatchObject({ call_count: 3, input_tokens: 30, exit_code: 3 });
    expect(text).toContain(`"first_seen_ns":${ns(0)},`); // the first call's start, not the exit's time (exact digits)
    const crash = (await sessionInterruptions(sessionId)).filter((r) => r.interruption_type === "agent_crash");
    expect(crash).toHaveLength(1);
  });

  it("keeps a process's counts exact when its batches and exit arrive at the same time", async () => {
    const sessionId = uid("parallel");
    const batches = Array.from({ length: 6 }, (_, b) => Array.from({ length: 5 }, (_, i) => call({ session_id: sessionId, input_tokens: 10, output_tokens: 1 }, (b * 5 + i) * 1000)));
    const exit = { kind: "process_exit", pid: 4243, agent_name: "TestAgent", host: "test-host", session_id: sessionId, at_ns: ns(60_000), exit_code: 0 };
    const results = await Promise.all([...batches.map((b) => post("/api/ingest/calls", b)), post("/api/ingest/events", [exit])]);
    expect(results.map((r) => r.status)).toEqual(Array(7).fill(200));
    const res = await server.api(`/api/sessions/${sessionId}`);
    const session = (await res.json()) as { call_count: number; input_tokens: number; exit_code: number | null };
    expect(session).toMatchObject({ call_count: 30, input_tokens: 300, exit_code: 0 });
  });

  it("stores text with NUL characters as U+FFFD (PostgreSQL text cannot hold them)", async () => {
    const sessionId = uid("nul");
    const res = await post("/api/ingest/calls", call({ session_id: sessionId, agent_name: "nul\u0000agent", status_code: 500, error: "bad\u0000byte", input_messages: [user("x\u0000y")] }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [found] = await sessionInterruptions(sessionId);
    expect(found.interruption_type).toBe("llm_error");
    expect(found.detail).toContain("bad\uFFFDbyte"); // the same on SQLite and PostgreSQL
  });

  it("never stores API keys or authorization headers", async () => {
    const sessionId = uid("secrets");
    const secretKey = "sk-live-SECRETSECRETSECRET1234567890";
    const exchange = {
      call_id: uid("http"),
      session_id: sessionId,
      agent_name: "TestAgent",
      start_ns: ns(0),
      end_ns: ns(900),
      request: {
        method: "POST",
        url: "https://api.openai.com/v1/chat/completions?api_key=QUERYSECRET123456",
        headers: { authorization: `Bearer ${secretKey}`, "x-api-key": "XAPIKEYSECRET99887766" },
        body: { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] },
      },
      response: { status: 401, headers: { "set-cookie": "session=COOKIESECRET5544" }, body: { error: { message: `Incorrect API key provided: ${secretKey}`, type: "invalid_request_error", code: "invalid_api_key" } } },
    };
    const res = await post("/api/ingest/http", exchange);
    expect(res.status).toBe(200);
    await post("/api/ingest/calls", call({ session_id: sessionId, extra_headers: { Authorization: `Bearer ${secretKey}` }, status_code: 500, error: `auth header was Bearer ${secretKey}` }));
    const types = (await sessionInterruptions(sessionId)).map((r) => r.interruption_type);
    expect(types).toContain("auth_error");
    const bytes = await databaseBytes(server);
    for (const secret of [secretKey, "XAPIKEYSECRET99887766", "COOKIESECRET5544", "QUERYSECRET123456"]) {
      expect(bytes.includes(secret), `${secret} reached the database`).toBe(false);
    }
  });
});

describe("detection end to end", () => {
  it("withdraws the empty_response of a turn that ends steered afterwards, and skips cancelled calls", async () => {
    const sessionId = uid("steered");
    const empty = call({ session_id: sessionId, turn_id: "turn-1", output_messages: [], finish_reasons: [] });
    const cancelled = call({ session_id: sessionId, turn_id: "turn-2", output_messages: [], cancelled: true }, 2000);
    await post("/api/ingest/calls", [empty, cancelled]);
    expect((await sessionInterruptions(sessionId)).map((r) => r.interruption_type)).toEqual(["empty_response"]);
    const res = await post("/api/ingest/events", { kind: "turn_end", session_id: sessionId, turn_id: "turn-1", reason: "steered", at_ns: ns(1500) });
    expect(res.body).toMatchObject({ withdrawn: 1 });
    const [withdrawn] = await sessionInterruptions(sessionId);
    expect(withdrawn).toMatchObject({ resolved: true, status: "resolved" });
  });

  it("a turn_id is the session's own: two sessions' \"turn-1\" are two turns, and one's end touches nothing of the other", async () => {
    // before, both were one Turn row: the second session's turn showed the first one's end, and
    // its turn_end withdrew the first session's empty_response
    const [first, second] = [uid("turns-a"), uid("turns-b")];
    await post("/api/ingest/calls", [
      call({ session_id: first, turn_id: "turn-1", output_messages: [], finish_reasons: [] }),
      call({ session_id: second, turn_id: "turn-1", output_messages: [], finish_reasons: [] }, 1000),
    ]);
    const res = await post("/api/ingest/events", { kind: "turn_end", session_id: second, turn_id: "turn-1", reason: "steered", at_ns: ns(1500) });
    expect(res.body).toMatchObject({ withdrawn: 1 });
    expect((await sessionInterruptions(first)).map((r) => [r.interruption_type, r.status])).toEqual([["empty_response", "open"]]);
    expect((await sessionInterruptions(second)).map((r) => [r.interruption_type, r.status])).toEqual([["empty_response", "resolved"]]);
    type Detail = { conversations: { turns: { turn_id: string; end_reason: string | null; call_count: number }[] }[] };
    const turns = async (session: string) => ((parseJsonExact(await (await server.api(`/api/sessions/${session}`)).text()) as Detail).conversations.flatMap((c) => c.turns));
    expect(await turns(first)).toEqual([expect.objectContaining({ turn_id: "turn-1", end_reason: null, call_count: 1 })]);
    expect(await turns(second)).toEqual([expect.objectContaining({ turn_id: "turn-1", end_reason: "steered", call_count: 1 })]);
    // the calls name their turn as the sender did
    const calls = parseJsonExact(await (await server.api(`/api/sessions/${first}/calls`)).text()) as { turn_id: string }[];
    expect(calls.map((c) => c.turn_id)).toEqual(["turn-1"]);
  });

  it("an answer of reasoning alone, or of blank text, is an empty_response (SPEC: no text, no tool call)", async () => {
    const sessionId = uid("reasoning-only");
    const answer = (parts: unknown[], at: number) => call({ session_id: sessionId, conversation_id: uid("c"), output_messages: [{ role: "assistant", finish_reason: "stop", parts }], finish_reasons: ["stop"] }, at);
    // before, the thinking counted as an answer
    await post("/api/ingest/calls", [
      answer([{ type: "reasoning", content: "Let me think about the schema first…" }], 0),
      answer([{ type: "text", content: " \n" }], 1000),
      answer([{ type: "reasoning", content: "so:" }, { type: "text", content: "Done." }], 2000),
    ]);
    expect((await sessionInterruptions(sessionId)).map((r) => r.interruption_type)).toEqual(["empty_response", "empty_response"]);
  });

  it("links later 400s of a bricked conversation to the call that bricked it", async () => {
    const sessionId = uid("bricked");
    const history = [user("run the tests"), toolCall("call_9", "bash", { cmd: "npm test" }), user("and then?")];
    const root = call({ session_id: sessionId, conversation_id: "conv-b", input_messages: history });
    const later = call({ session_id: sessionId, conversation_id: "conv-b", input_messages: [...history, assistant("..."), user("hello?")], status_code: 400, error: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'", output_messages: [] }, 2000);
    await post("/api/ingest/calls", [root, later]);
    const records = await sessionInterruptions(sessionId);
    expect(records).toHaveLength(2);
    const rootDetail = JSON.parse(records[0].detail);
    expect(rootDetail).toMatchObject({ rule: "unbalanced_tool_calls", dangling: ["call_9"] });
    expect(JSON.parse(records[1].detail).bricked_since_call_id).toBe(root.call_id);
  });

  it("judges a tool result once although it reappears in every later history", async () => {
    const sessionId = uid("tool-once");
    let history: unknown[] = [user("build it"), toolCall("t1", "bash", { cmd: "make" }), toolResponse("t1", "make: *** [all] Error 2\nexit code: 2")];
    const calls = [];
    for (let i = 0; i < 4; i++) {
      calls.push(call({ session_id: sessionId, conversation_id: "c-tool", input_messages: history }, i * 1000));
      history = [...history, assistant(`attempt ${i}`), user(`try again ${i}`)];
    }
    await post("/api/ingest/calls", calls.slice(0, 2));
    await post("/api/ingest/calls", calls.slice(2));
    const failures = (await sessionInterruptions(sessionId)).filter((r) => r.interruption_type === "tool_failure");
    expect(failures).toHaveLength(1);
    // the end of the call that shows it (SPEC §3.1), as for the call's own findings; before, its start
    const exact = parseJsonExact(await (await server.api(`/api/interruptions/${failures[0].interruption_id}`)).text()) as { occurred_at_ns: bigint };
    expect([failures[0].call_id, String(exact.occurred_at_ns)]).toEqual([calls[0].call_id, calls[0].end_ns]);
  });

  it("groups a dead loop into one open interruption updated by new evidence", async () => {
    const sessionId = uid("loop");
    const calls = Array.from({ length: 7 }, (_, i) =>
      call({ session_id: sessionId, conversation_id: "c-loop", output_messages: [toolCall(`l${i}`, "bash", { cmd: "cat package.json" })], finish_reasons: ["tool_calls"] }, i * 1000),
    );
    await post("/api/ingest/calls", calls.slice(0, 5));
    await post("/api/ingest/calls", calls.slice(5));
    const loops = (await sessionInterruptions(sessionId)).filter((r) => r.interruption_type === "dead_loop");
    expect(loops).toHaveLength(1);
    expect(loops[0]).toMatchObject({ occurrences: 3, call_id: calls[4].call_id });
    expect(JSON.parse(loops[0].detail)).toMatchObject({ rule: "tool_sequence_repetition", repeat_count: 7 });
    // its group is last seen at its latest evidence, with its sightings (before: when it opened, once)
    const groups = parseJsonExact(await (await server.api(`/api/interruptions/groups?session_id=${sessionId}&interruption_type=dead_loop`)).text()) as { last_seen_ns: string; count: number; occurrences: number }[];
    const record = parseJsonExact(await (await server.api(`/api/interruptions/${loops[0].interruption_id}`)).text()) as { last_seen_ns: string; occurred_at_ns: string };
    expect(BigInt(record.last_seen_ns)).toBeGreaterThan(BigInt(record.occurred_at_ns));
    expect(groups).toEqual([expect.objectContaining({ count: 1, occurrences: 3, last_seen_ns: record.last_seen_ns })]);
  });

  it("opens a retry storm at the fifth failure of one type, not the fourth", async () => {
    const sessionId = uid("storm");
    const failing = (i: number) => call({ session_id: sessionId, conversation_id: "c-storm", status_code: 429, error: "rate_limit_exceeded" }, i * 1000);
    await post("/api/ingest/calls", [0, 1, 2, 3].map(failing));
    expect((await sessionInterruptions(sessionId)).filter((r) => r.interruption_type === "retry_storm")).toHaveLength(0);
    await post("/api/ingest/calls", [failing(4)]);
    const storms = (await sessionInterruptions(sessionId)).filter((r) => r.interruption_type === "retry_storm");
    expect(storms).toHaveLength(1);
    expect(JSON.parse(storms[0].detail)).toEqual({ repeated_type: "rate_limit", count: 5 });
  });

  it("classifies raw provider exchanges: Anthropic 529 and a cut OpenAI stream", async () => {
    const sessionId = uid("raw");
    const anthropic529 = {
      call_id: uid("http"), session_id: sessionId, agent_name: "TestAgent", start_ns: ns(0), end_ns: ns(400),
      request: { method: "POST", url: "https://api.anthropic.com/v1/messages", body: { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] } },
      response: { status: 529, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
    };
    const cutStream = {
      call_id: uid("http"), session_id: sessionId, agent_name: "TestAgent", start_ns: ns(1000), end_ns: ns(4000),
      request: { method: "POST", url: "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", body: { model: "qwen-plus", stream: true, messages: [{ role: "user", content: "write a poem" }] } },
      response: {
        status: 200,
        sse: 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"qwen-plus","choices":[{"index":0,"delta":{"role":"assistant","content":"Roses"},"finish_reason":null}]}\n\ndata: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"qwen-plus","choices":[{"index":0,"delta":{"content":" are"},"finish_reason":null}]}\n\n',
      },
    };
    expect((await post("/api/ingest/http", [anthropic529, cutStream])).status).toBe(200);
    const types = (await sessionInterruptions(sessionId)).map((r) => r.interruption_type);
    expect(types).toEqual(["service_unavailable", "sse_truncated"]);
  });

  it("reports a tool_result event's permission denial as unauthorized_action", async () => {
    const sessionId = uid("denied");
    await post("/api/ingest/calls", call({ session_id: sessionId }));
    const res = await post("/api/ingest/events", {
      kind: "tool_result", session_id: sessionId, tool_call_id: "tc-denied", name: "bash", arguments: { cmd: "rm -rf /etc" },
      success: false, error: "rm: cannot remove '/etc/passwd': Permission denied", at_ns: ns(2000),
    });
    expect(res.body).toMatchObject({ interruptions: 1 });
    const types = (await sessionInterruptions(sessionId)).map((r) => r.interruption_type);
    expect(types).toEqual(["unauthorized_action"]);
  });

  it("marks a failed tool_result event that names no call (an OTLP execute_tool span) on the call that made the tool call", async () => {
    const sessionId = uid("tool-maker");
    const conversationId = uid("conv");
    const maker = call({ session_id: sessionId, conversation_id: conversationId, output_messages: [{ ...toolCall("tc-maker", "bash", { cmd: "make" }), finish_reason: "tool_calls" }], finish_reasons: ["tool_calls"] });
    await post("/api/ingest/calls", maker);
    const res = await post("/api/ingest/events", { kind: "tool_result", session_id: sessionId, tool_call_id: "tc-maker", name: "bash", success: false, error: "make: *** [all] Error 2", at_ns: ns(2000) });
    expect(res.body).toMatchObject({ interruptions: 1 });
    const [failure] = await sessionInterruptions(sessionId);
    expect(failure).toMatchObject({ interruption_type: "tool_failure", call_id: maker.call_id, conversation_id: conversationId });
  });
});
