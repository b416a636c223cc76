// Credentials in every form an agent leaks them (SPEC §5.3, tests/support/secrets.ts) are
// ingested through all three routes, in every place a call carries text; none may come back
// from any API view of that session (what the dashboard shows), nor reach the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plain, SECRET_FORMS } from "../support/secrets";
import { call, ns, toolCall, toolResponse, uid, user } from "./support/payloads";
import { ingestCalls, ingestEvents, sessionInterruptions } from "./support/http";
import { databaseBytes, startServer, type TestServer } from "./support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const leakText = SECRET_FORMS.map(([form]) => plain(form)).join("\n");
const secrets = SECRET_FORMS.map(([, secret]) => secret);

/** Every secret found in `text`. */
const leaked = (text: string) => secrets.filter((s) => text.includes(s));

async function read(route: string): Promise<string> {
  const res = await server.api(route);
  expect(res.status, route).toBe(200);
  return res.text();
}

describe("no credential survives ingest", () => {
  it("in messages, tool arguments and results, errors, bodies, events and raw exchanges", async () => {
    const sessionId = uid("leaky");
    const argumentsObject = { url: "https://internal.example", api_key: "ak-object-arg-0101", password: "pw-object-arg-0102", note: leakText };
    secrets.push("ak-object-arg-0101", "pw-object-arg-0102", "ak-string-arg-0103");
    const calls = [
      call({
        session_id: sessionId,
        input_messages: [
          user(`please deploy\n${leakText}`),
          toolCall("t1", "http_get", argumentsObject),
          toolResponse("t1", `HTTP 200\n${leakText}`),
          toolCall("t2", "bash", JSON.stringify({ cmd: "curl", api_key: "ak-string-arg-0103" })),
          toolResponse("t2", { stdout: leakText, exit_code: 1 }),
        ],
        output_messages: [{ role: "assistant", parts: [{ type: "text", content: `Found these: ${leakText}` }] }],
        leaked_config: leakText,
      }),
      call({ session_id: sessionId, status_code: 500, error: `upstream said ${leakText}`, response_body: JSON.stringify({ error: { message: leakText } }) }, 1000),
    ];
    expect((await ingestCalls(server, calls)).accepted).toBe(2);

    const exchange = {
      call_id: uid("leaky-http"),
      session_id: sessionId,
      agent_name: "TestAgent",
      start_ns: ns(2000),
      end_ns: ns(2500),
      request: { method: "POST", url: "https://api.openai.com/v1/chat/completions", body: { model: "gpt-4o", messages: [{ role: "user", content: leakText }] } },
      response: { status: 401, body: { error: { message: `Incorrect API key: ${leakText}`, type: "invalid_request_error", code: "invalid_api_key" } } },
    };
    const http = await server.api("/api/ingest/http", { method: "POST", body: JSON.stringify(exchange) });
    expect(http.status).toBe(200);

    await ingestEvents(server, [
      { kind: "tool_result", session_id: sessionId, tool_call_id: "t9", name: "bash", arguments: argumentsObject, response: leakText, error: leakText, success: false, at_ns: ns(3000) },
    ]);

    const interruptions = await sessionInterruptions(server, sessionId);
    expect(interruptions.length).toBeGreaterThanOrEqual(3); // tool failure, llm error, auth error
    const views = [
      `/api/sessions/${sessionId}`,
      `/api/sessions/${sessionId}/calls`,
      `/api/sessions/${sessionId}/interruptions`,
      `/api/interruptions?session_id=${sessionId}&start_ns=0`,
      ...[...calls.map((c) => c.call_id), exchange.call_id].map((id) => `/api/calls/${id}`),
      ...interruptions.flatMap((i) => [`/api/interruptions/${i.interruption_id}`, `/api/interruptions/${i.interruption_id}/activity`]),
    ];
    for (const route of views) expect(leaked(await read(route)), route).toEqual([]);

    // the masked places still show that something was there
    const first = await read(`/api/calls/${calls[0].call_id}`);
    expect(first).toContain("[redacted]");
    expect(first).toContain("internal.example");

    expect(leaked(await databaseBytes(server))).toEqual([]);
  });
});
