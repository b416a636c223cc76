// Regressions found by fuzzing ingest (ingest-fuzz.test.ts): numbers that passed validation but
// did not fit the database column, so the ingest or a later read of the call was a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, ns, uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const MAX_INT = 2 ** 31 - 1;

async function post(route: string, body: unknown) {
  const res = await server.api(route, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { error?: string; accepted?: number } };
}

async function get(route: string) {
  const res = await server.api(route);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("numbers that do not fit a column", () => {
  it("a raw exchange with provider token counts beyond the Int range, fractional or negative stores them as absent", async () => {
    for (const value of [2 ** 53, 2 ** 31, 1.5, -3]) {
      const id = uid("http-limits");
      const exchange = {
        call_id: id,
        start_ns: ns(0),
        end_ns: ns(500),
        request: { method: "POST", url: "https://api.openai.com/v1/chat/completions", body: { model: "gpt-4o", max_tokens: value, messages: [{ role: "user", content: "hi" }] } },
        response: { status: 200, body: { id: "chatcmpl-1", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "hello" } }], usage: { prompt_tokens: value, completion_tokens: 5 } } },
      };
      expect((await post("/api/ingest/http", exchange)).status, String(value)).toBe(200);
      const read = await get(`/api/calls/${id}`);
      expect(read.status, String(value)).toBe(200);
      expect(read.body).toMatchObject({ max_tokens: null, input_tokens: null, output_tokens: 5 });
    }
  });

  it("rejects counts, pids and exit codes beyond the Int range with a 400 naming the item and field", async () => {
    for (const [field, value] of [["max_tokens", MAX_INT + 1], ["input_tokens", 2 ** 40], ["sse_event_count", 2 ** 53 - 1], ["pid", 2 ** 31], ["pid", -(2 ** 31) - 1]] as const) {
      const res = await post("/api/ingest/calls", [call(), call({ [field]: value })]);
      expect(res.status, `${field}=${value}`).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^item 1: ${field}: `));
    }
    const exit = { kind: "process_exit", pid: 7, agent_name: "A", at_ns: ns(0), exit_code: 2 ** 32 };
    expect((await post("/api/ingest/events", [exit])).body.error).toMatch(/^item 0: exit_code: /);
    expect((await post("/api/ingest/calls", call({ pid: MAX_INT, max_tokens: MAX_INT }))).status).toBe(200);
  });

  it("rejects nanoseconds beyond a signed 64-bit integer with a 400 naming the field", async () => {
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ["/api/ingest/calls", "start_ns", call({ start_ns: "99999999999999999999" })],
      ["/api/ingest/calls", "end_ns", call({ end_ns: "9223372036854775808" })],
      ["/api/ingest/events", "at_ns", { kind: "turn_end", session_id: "s", turn_id: uid("t"), reason: "completed", at_ns: "18446744073709551615" }],
    ];
    for (const [route, field, body] of cases) {
      const res = await post(route, [body]);
      expect(res.status, field).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^item 0: ${field}: `));
    }
    // the largest value still fits
    expect((await post("/api/ingest/calls", call({ end_ns: "9223372036854775807" }))).status).toBe(200);
  });

  it("a session's token totals pass 2^31 (64-bit columns) and read back exactly", async () => {
    const sessionId = uid("totals");
    for (let i = 0; i < 3; i++) {
      expect((await post("/api/ingest/calls", call({ session_id: sessionId, input_tokens: MAX_INT, output_tokens: MAX_INT - 1 }))).status).toBe(200);
    }
    const session = await get(`/api/sessions/${sessionId}`);
    expect(session.status).toBe(200);
    expect(JSON.stringify(session.body)).toContain(`"input_tokens":${3 * MAX_INT}`);
    expect(JSON.stringify(session.body)).toContain(`"output_tokens":${3 * (MAX_INT - 1)}`);
  });
});

describe("a history of tool calls that names many or long ids", () => {
  it("refuses a tool-call id or tool name longer than 512 characters with a 400 naming it", async () => {
    const long = "x".repeat(513);
    const history = [
      { role: "user", parts: [{ type: "text", content: "go" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: long, name: "bash", arguments: {} }] },
    ];
    const res = await post("/api/ingest/calls", call({ input_messages: history }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^input_messages\[1\]\.parts\[0\]\.id: /);
    const named = [history[0], { role: "assistant", parts: [{ type: "tool_call", id: "t1", name: long, arguments: {} }] }];
    expect((await post("/api/ingest/calls", call({ input_messages: named }))).body.error).toMatch(/^input_messages\[1\]\.parts\[0\]\.name: /);
  });

  it("keeps 20 ids of each kind with the call and its interruption, and how many there were", async () => {
    const id = uid("many-dangling");
    const calls = Array.from({ length: 1_000 }, (_, i) => ({ type: "tool_call", id: `${id}-tool-${i}`, name: "bash", arguments: {} }));
    const history = [{ role: "user", parts: [{ type: "text", content: "go" }] }, { role: "assistant", parts: calls }, { role: "user", parts: [{ type: "text", content: "and?" }] }];
    expect((await post("/api/ingest/calls", call({ call_id: id, session_id: id, input_messages: history, status_code: 400 }))).status).toBe(200);
    const found = (await get(`/api/interruptions?session_id=${id}`)).body as unknown as { interruption_type: string; detail: string }[];
    const detail = JSON.parse(found.find((i) => i.interruption_type === "state_machine_error")!.detail) as Record<string, unknown>;
    expect(detail).toMatchObject({ rule: "unbalanced_tool_calls", dangling_count: 1_000, orphan_count: 0, duplicate_count: 0 });
    expect(detail.dangling).toEqual(calls.slice(0, 20).map((c) => c.id));
    const stored = (await get(`/api/sessions/${id}/calls`)).body as unknown as { unbalanced_tool_calls: Record<string, unknown> }[];
    expect(stored[0].unbalanced_tool_calls).toEqual({ dangling: calls.slice(0, 20).map((c) => c.id), orphan: [], duplicate: [], dangling_count: 1_000, orphan_count: 0, duplicate_count: 0 });
    // the call's own page still works out the whole balance from its history
    const page = (await get(`/api/calls/${id}`)).body as { tool_balance: { dangling: string[] } };
    expect(page.tool_balance.dangling).toHaveLength(1_000);
  });
});
