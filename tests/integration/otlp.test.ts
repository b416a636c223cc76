// OpenTelemetry ingest (SPEC §2.7) against the real server: spans recorded by the real
// OpenTelemetry JS SDK and sent, unchanged, by its OTLP/HTTP exporters (protobuf and JSON).
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import zlib from "node:zlib";
import { context, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { CompressionAlgorithm } from "@opentelemetry/otlp-exporter-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken, request, sessionInterruptions, type InterruptionRecord } from "./support/http";
import { uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

type Tracer = ReturnType<BasicTracerProvider["getTracer"]>;
type Sent = { spans: ReadableSpan[]; results: ExportResult[]; exporter: SpanExporter };

const endpoint = () => `${server.url}/api/otlp/v1/traces`;

function exporterOf(kind: "proto" | "json", gzip = false): SpanExporter {
  const config = { url: endpoint(), headers: { Authorization: "Bearer " + server.token }, ...(gzip ? { compression: CompressionAlgorithm.GZIP } : {}) };
  return kind === "proto" ? new ProtoExporter(config) : new JsonExporter(config);
}

/** Records spans with the SDK and exports them through `kind`'s exporter; the export results are kept. */
async function send(kind: "proto" | "json", build: (t: Tracer) => void, options: { gzip?: boolean; resource?: Attributes } = {}): Promise<Sent> {
  const exporter = exporterOf(kind, options.gzip);
  const results: ExportResult[] = [];
  const spans: ReadableSpan[] = [];
  const exportOriginal = exporter.export.bind(exporter);
  exporter.export = (batch, done) => {
    spans.push(...batch);
    exportOriginal(batch, (r) => (results.push(r), done(r)));
  };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "otel-agent", "process.pid": 31337, "host.name": "otel-host", ...options.resource }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  build(provider.getTracer("sightdesk-test"));
  await provider.forceFlush();
  expect(results.map((r) => r.code), String(results.find((r) => r.error)?.error)).toEqual(results.map(() => ExportResultCode.SUCCESS));
  expect(results.length).toBeGreaterThan(0);
  return { spans, results, exporter };
}

const T0 = Date.now() - 60_000;
function span(t: Tracer, name: string, attributes: Attributes, fill: (s: Span) => void = () => {}, ms = 800, parent?: Span): Span {
  const s = t.startSpan(name, { attributes, startTime: T0 }, parent ? trace.setSpan(context.active(), parent) : undefined);
  fill(s);
  s.end(T0 + ms);
  return s;
}
const idOf = (s: ReadableSpan | Span) => {
  const c = s.spanContext();
  return c.traceId + c.spanId;
};

type CallBody = { call_id: string; model: string; provider: string; agent_name: string; session_id: string; conversation_id: string; status_code: number | null; input_tokens: number; output_tokens: number; error: string | null; trace_id: string | null; system_instructions: unknown; input_messages: unknown[]; output_messages: unknown[]; tool_calls: { tool_call_id: string; success: boolean | null; response: string | null; error: string | null }[] };

async function getCall(id: string): Promise<CallBody> {
  const reply = await request<CallBody>(server, "GET", `/api/calls/${id}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function sessionCalls(session: string): Promise<{ call_id: string }[]> {
  const reply = await request<{ call_id: string }[]>(server, "GET", `/api/sessions/${encodeURIComponent(session)}/calls`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const byCall = (records: InterruptionRecord[], callId: string) => records.filter((r) => r.call_id === callId).map((r) => r.interruption_type);

function chatAttributes(session: string): Attributes {
  return {
    "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o", "gen_ai.response.model": "gpt-4o-2024-08-06",
    "gen_ai.response.id": uid("chatcmpl"), "gen_ai.usage.input_tokens": 42, "gen_ai.usage.output_tokens": 9, "gen_ai.request.max_tokens": 256,
    "gen_ai.response.finish_reasons": ["tool_calls"], "session.id": session, "gen_ai.conversation.id": "conv-" + session,
    "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "You run shell commands." }]),
    "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "what is here?" }] }]),
    "gen_ai.output.messages": JSON.stringify([{ role: "assistant", finish_reason: "tool_calls", parts: [{ type: "tool_call", id: "call_ls", name: "bash", arguments: { cmd: "ls" } }] }]),
  };
}

describe("POST /api/otlp/v1/traces with the OpenTelemetry SDK's exporters", () => {
  it("a chat span with messages as attributes (protobuf) arrives as the call it describes", async () => {
    const session = uid("otel");
    const sent = await send("proto", (t) => span(t, "chat gpt-4o", chatAttributes(session)));
    const id = idOf(sent.spans[0]);
    expect((await sessionCalls(session)).map((c) => c.call_id)).toEqual([id]);
    const c = await getCall(id);
    expect(c).toMatchObject({
      call_id: id, model: "gpt-4o-2024-08-06", provider: "openai", agent_name: "otel-agent", session_id: session, conversation_id: "conv-" + session,
      status_code: 200, input_tokens: 42, output_tokens: 9, error: null,
      system_instructions: [{ type: "text", content: "You run shell commands." }],
      input_messages: [{ role: "user", parts: [{ type: "text", content: "what is here?" }] }],
    });
    expect(c.trace_id).toMatch(/^chatcmpl-/);
    expect(JSON.stringify(c.output_messages)).toContain('"call_ls"');
    expect(await sessionInterruptions(server, session)).toEqual([]);
  });

  it("a chat span with the older message events (JSON exporter)", async () => {
    const session = uid("otel");
    const sent = await send("json", (t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.system": "anthropic", "gen_ai.request.model": "claude-sonnet-4", "session.id": session }, (s) => {
      s.addEvent("gen_ai.system.message", { content: "Be brief." });
      s.addEvent("gen_ai.user.message", { content: "hello" });
      s.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", message: JSON.stringify({ role: "assistant", content: "Hi." }) });
    }));
    const c = await getCall(idOf(sent.spans[0]));
    expect(c).toMatchObject({
      provider: "anthropic", model: "claude-sonnet-4", status_code: 200, session_id: session,
      system_instructions: [{ type: "text", content: "Be brief." }],
      input_messages: [{ role: "user", parts: [{ type: "text", content: "hello" }] }],
      output_messages: [{ role: "assistant", parts: [{ type: "text", content: "Hi." }] }],
    });
  });

  it("Gemini's function calls without ids: stored, answered by the next call's history, no interruption", async () => {
    const session = uid("otel-gemini");
    const call = { type: "tool_call", name: "get_weather", arguments: { city: "Oslo" } };
    const user = { role: "user", parts: [{ type: "text", content: "weather in Oslo?" }] };
    const gemini = (input: unknown[], output: unknown[], ms: number): Attributes => ({
      "gen_ai.operation.name": "generate_content", "gen_ai.provider.name": "gcp.gemini", "gen_ai.request.model": "gemini-2.5-flash", "session.id": session,
      "gen_ai.input.messages": JSON.stringify(input), "gen_ai.output.messages": JSON.stringify(output), "gen_ai.usage.output_tokens": ms,
    });
    const sent = await send("proto", (t) => {
      span(t, "generate_content", gemini([user], [{ role: "model", parts: [call] }], 10));
      span(t, "generate_content", gemini([user, { role: "model", parts: [call] }, { role: "user", parts: [{ type: "tool_call_response", response: { temp: 7 } }] }], [{ role: "model", parts: [{ type: "text", content: "7 °C." }] }], 12), undefined, 900);
    });
    const [first, second] = await Promise.all(sent.spans.map((s) => getCall(idOf(s))));
    expect(first.status_code).toBe(200);
    expect(JSON.stringify(second.input_messages)).toContain(JSON.stringify((first.output_messages[0] as { parts: { id: string }[] }).parts[0].id));
    // no empty_response for the function call, no unanswered tool call in the history
    expect(await sessionInterruptions(server, session)).toEqual([]);
  });

  it("an errored span (status ERROR, error.type, HTTP 429) becomes a rate_limit interruption", async () => {
    const session = uid("otel");
    const sent = await send("proto", (t) => span(t, "chat gpt-4o", { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o", "session.id": session, "error.type": "RateLimitError", "http.response.status_code": 429 }, (s) => {
      s.recordException({ name: "RateLimitError", message: "429 Rate limit reached for gpt-4o" });
      s.setStatus({ code: SpanStatusCode.ERROR, message: "Rate limit reached" });
    }));
    const id = idOf(sent.spans[0]);
    const c = await getCall(id);
    expect(c.status_code).toBe(429);
    expect(c.error).toContain("RateLimitError");
    expect(byCall(await sessionInterruptions(server, session), id)).toEqual(["rate_limit"]);
  });

  it("a slow span recorded without message content (the instrumentations' default) is a slow_response, not an empty response", async () => {
    const session = uid("otel");
    const sent = await send("proto", (t) => {
      const start = Date.now() - 300_000;
      const s = t.startSpan("chat gpt-4o", { startTime: start, attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.response.finish_reasons": ["stop"], "session.id": session } });
      s.end(start + 130_000);
    });
    const id = idOf(sent.spans[0]);
    expect((await getCall(id)).status_code).toBeNull(); // its status went unrecorded
    // before, only a 2xx could be slow: this call was never judged slow
    expect(byCall(await sessionInterruptions(server, session), id)).toEqual(["slow_response"]);
  });

  it("execute_tool spans become tool results: a success answers the call's tool call, a failure is a tool_failure", async () => {
    const session = uid("otel");
    const sent = await send("proto", (t) => {
      const agent = t.startSpan("invoke_agent shell", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "shell-agent" }, startTime: T0 });
      span(t, "chat gpt-4o", { ...chatAttributes(session), "gen_ai.agent.name": "shell-agent" }, () => {}, 300, agent);
      span(t, "execute_tool bash", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_ls", "gen_ai.tool.call.arguments": '{"cmd":"ls"}', "gen_ai.tool.call.result": "a.txt\nb.txt", "session.id": session }, () => {}, 400, agent);
      span(t, "execute_tool bash", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_rm", "session.id": session, "error.type": "ToolError" }, (s) => s.setStatus({ code: SpanStatusCode.ERROR, message: "rm: exit code 1" }), 500, agent);
      agent.end(T0 + 600);
    });
    const chat = sent.spans.find((s) => s.name === "chat gpt-4o")!;
    const c = await getCall(idOf(chat));
    expect(c.agent_name).toBe("shell-agent");
    expect(c.tool_calls).toEqual([expect.objectContaining({ tool_call_id: "call_ls", success: true, response: "a.txt\nb.txt" })]);
    const records = await sessionInterruptions(server, session);
    expect(records.map((r) => r.interruption_type)).toEqual(["tool_failure"]);
    expect(JSON.parse(records[0].detail)).toMatchObject({ tool_call_id: "call_rm", tool_name: "bash" });
  });

  it("a tool's output and error holding U+0000 are stored (as U+FFFD on PostgreSQL, whose text cannot hold it)", async () => {
    const session = uid("otel-nul");
    const sent = await send("json", (t) => {
      span(t, "chat gpt-4o", chatAttributes(session), () => {}, 300);
      span(t, "execute_tool cat", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "cat", "gen_ai.tool.call.id": "call_ls", "gen_ai.tool.call.result": "bin\u0000ary", "session.id": session }, () => {}, 400);
      span(t, "execute_tool cat", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "cat", "gen_ai.tool.call.id": "call_rm", "session.id": session }, (s) => s.setStatus({ code: SpanStatusCode.ERROR, message: "cat: bin\u0000ary: exit 1" }), 500);
    });
    // before, on PostgreSQL: 500, with the call stored and the tool results not
    const c = await getCall(idOf(sent.spans.find((s) => s.name === "chat gpt-4o")!));
    expect(c.tool_calls).toEqual([expect.objectContaining({ tool_call_id: "call_ls", response: expect.stringMatching(/^bin[\u0000\uFFFD]ary$/) })]);
    expect((await sessionInterruptions(server, session)).map((r) => r.interruption_type)).toEqual(["tool_failure"]);
  });

  it("an OpenInference LLM span (JSON exporter)", async () => {
    const session = uid("oi");
    const sent = await send("json", (t) => span(t, "ChatCompletion", {
      "openinference.span.kind": "LLM", "llm.model_name": "qwen-plus", "llm.provider": "dashscope", "session.id": session,
      "llm.token_count.prompt": 30, "llm.token_count.completion": 4,
      "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "2+2?",
      "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "4",
    }));
    const c = await getCall(idOf(sent.spans[0]));
    expect(c).toMatchObject({
      model: "qwen-plus", provider: "dashscope", session_id: session, input_tokens: 30, output_tokens: 4, status_code: 200,
      input_messages: [{ role: "user", parts: [{ type: "text", content: "2+2?" }] }],
      output_messages: [{ role: "assistant", parts: [{ type: "text", content: "4" }] }],
    });
  });

  it("a re-export changes nothing", async () => {
    const session = uid("otel");
    const sent = await send("proto", (t) => {
      span(t, "chat gpt-4o", chatAttributes(session));
      span(t, "chat gpt-4o", { "gen_ai.operation.name": "chat", "session.id": session, "http.response.status_code": 429, "error.type": "429" }, (s) => s.setStatus({ code: SpanStatusCode.ERROR }));
      span(t, "execute_tool bash", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_ls", "session.id": session }, (s) => s.setStatus({ code: SpanStatusCode.ERROR }));
    });
    const snapshot = async () => ({
      calls: (await request(server, "GET", `/api/sessions/${session}/calls`)).text,
      interruptions: (await request(server, "GET", `/api/sessions/${session}/interruptions`)).text,
      call: (await request(server, "GET", `/api/calls/${idOf(sent.spans[0])}`)).text,
    });
    const before = await snapshot();
    expect(JSON.parse(before.interruptions)).toHaveLength(2);
    for (const kind of ["proto", "json"] as const) {
      const result = await new Promise<ExportResult>((resolve) => exporterOf(kind).export(sent.spans, resolve));
      expect(result.code).toBe(ExportResultCode.SUCCESS);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("gzip-compressed exports work (both exporters)", async () => {
    const session = uid("gz");
    const a = await send("proto", (t) => span(t, "chat", chatAttributes(session)), { gzip: true });
    const b = await send("json", (t) => span(t, "chat", chatAttributes(session)), { gzip: true });
    expect((await sessionCalls(session)).map((c) => c.call_id).sort()).toEqual([idOf(a.spans[0]), idOf(b.spans[0])].sort());
  });
});

describe("configuration only", () => {
  it("examples/otel-setup.mjs sends its span with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS", async () => {
    const session = uid("example");
    const run = spawnSync(process.execPath, [path.resolve(__dirname, "../../examples/otel-setup.mjs")], {
      env: { ...process.env, SESSION_ID: session, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint(), OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${server.token}` },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const records = await sessionInterruptions(server, session);
    expect(records.map((r) => [r.interruption_type, r.agent_name])).toEqual([["rate_limit", "my-agent"]]);
  });
});

describe("POST /api/otlp/v1/traces: the protocol's edges", () => {
  const post = (body: Uint8Array | string, type: string, headers: Record<string, string> = {}, token: string | null = server.token) =>
    fetch(endpoint(), { method: "POST", body: body as BodyInit, headers: { "content-type": type, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

  const otlpJson = (spans: object[]) => JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "raw" } }] }, scopeSpans: [{ scope: { name: "x" }, spans }] }] });
  const rawSpan = (attributes: Record<string, string | number>, spanId = crypto.randomBytes(8).toString("hex")) => ({
    traceId: "5b8efff798038103d269b633813fc60c", spanId, name: "s", kind: 1, startTimeUnixNano: String(BigInt(T0) * 1_000_000n), endTimeUnixNano: String(BigInt(T0 + 5) * 1_000_000n),
    attributes: Object.entries(attributes).map(([key, v]) => ({ key, value: typeof v === "number" ? { intValue: String(v) } : { stringValue: v } })),
  });

  it("a body that is not OTLP gets 400, in the request's encoding", async () => {
    const proto = await post(Buffer.from("definitely not protobuf"), "application/x-protobuf");
    expect(proto.status).toBe(400);
    expect(proto.headers.get("content-type")).toBe("application/x-protobuf");
    expect(Buffer.from(await proto.arrayBuffer()).toString("latin1")).toContain("Not an OTLP");
    const json = await post("hello", "application/json");
    expect(json.status).toBe(400);
    expect(((await json.json()) as { message: string }).message).toMatch(/Not an OTLP/);
    expect((await post('{"resourceSpans": "x"}', "application/json")).status).toBe(400);
    expect((await post("{}", "text/plain")).status).toBe(415);
  });

  it("a malformed or hostile protobuf body gets 400 naming the problem, small or large (worker thread)", async () => {
    const reason = async (res: Response) => ({ status: res.status, text: Buffer.from(await res.arrayBuffer()).toString("latin1") });
    // AnyValue{array_value{values: [AnyValue{…}]}} `levels` deep in one span attribute, built from the inside out
    const nested = (levels: number) => {
      const header = (field: number, size: number) => { const out = [(field << 3) | 2]; for (; size >= 0x80; size = Math.floor(size / 128)) out.push((size % 128) | 0x80); return [...out, size]; };
      const headers: number[][] = [];
      let size = 3;
      for (let i = 0; i < levels; i++) {
        const values = header(1, size);
        const array = header(5, size + values.length);
        headers.push([...array, ...values]);
        size += values.length + array.length;
      }
      const value = Buffer.concat([Buffer.from(headers.reverse().flat()), Buffer.from([0x0a, 0x01, 0x78])]);
      const wrap = (field: number, b: Buffer) => Buffer.concat([Buffer.from(header(field, b.length)), b]);
      const keyValue = Buffer.concat([wrap(1, Buffer.from("deep")), wrap(2, value)]);
      return wrap(1, wrap(2, wrap(2, wrap(9, keyValue))));
    };
    for (const levels of [200, 100_000]) {
      const deep = await reason(await post(nested(levels), "application/x-protobuf"));
      expect(deep.status, `${levels} levels: ${deep.text}`).toBe(400);
      expect(deep.text).toMatch(/Not an OTLP ExportTraceServiceRequest \(protobuf\): protobuf messages nested more than 100 deep/);
    }
    const truncated = await reason(await post(Buffer.from([0x0a, 0x05, 0x01]), "application/x-protobuf"));
    expect(truncated).toMatchObject({ status: 400, text: expect.stringMatching(/truncated protobuf message/) });
  });

  it("needs an ingest token: 401 without, 403 with a read-only one", async () => {
    expect((await post("{}", "application/json", {}, null)).status).toBe(401);
    const reader = await createToken(server, uid("otlp-reader"), ["read"]);
    expect((await post("{}", "application/json", {}, reader.token)).status).toBe(403);
    expect((await post("{}", "application/json")).status).toBe(200);
  });

  it("non-GenAI spans are ignored and counted in no error; unusable GenAI spans are a partial success", async () => {
    const session = uid("raw");
    const ok = await post(otlpJson([rawSpan({ "http.request.method": "GET" }), rawSpan({ "gen_ai.operation.name": "chat", "session.id": session })]), "application/json");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({});
    expect(await sessionCalls(session)).toHaveLength(1);
    const partial = await post(otlpJson([rawSpan({ "db.system": "sqlite" }), rawSpan({ "gen_ai.operation.name": "chat", "session.id": session, "gen_ai.request.model": "m".repeat(300) })]), "application/json");
    expect(partial.status).toBe(200);
    const body = (await partial.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(body.partialSuccess.rejectedSpans).toBe("1");
    expect(body.partialSuccess.errorMessage).toMatch(/model/);
  });

  it("the body limit applies to the inflated size of a gzip body", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const res = await post(bomb, "application/json", { "content-encoding": "gzip" });
    expect(res.status).toBe(413);
    expect((await post(Buffer.from("not gzip"), "application/json", { "content-encoding": "gzip" })).status).toBe(400);
  });

  it("when too many exports are in flight, answers 429 with Retry-After", async () => {
    // eight exports whose bodies have not finished arriving hold every slot (the default limit);
    // each has sent a valid start (an empty ResourceSpans), the rest follows on close
    const holds = Array.from({ length: 8 }, () => {
      let close!: () => void;
      const body = new ReadableStream<Uint8Array>({ start: (c) => { c.enqueue(new Uint8Array([0x0a, 0x00])); close = () => c.close(); } });
      const reply = fetch(endpoint(), { method: "POST", body, duplex: "half", headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${server.token}` } } as RequestInit);
      return { close: () => close(), reply };
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const busy = await post(Buffer.alloc(0), "application/x-protobuf");
      expect(busy.status).toBe(429);
      expect(busy.headers.get("retry-after")).toBe("1");
    } finally {
      for (const h of holds) h.close();
    }
    expect((await Promise.all(holds.map((h) => h.reply))).map((r) => r.status)).toEqual(Array(8).fill(200));
    expect((await post(Buffer.alloc(0), "application/x-protobuf")).status).toBe(200);
  });
});
