// OTLP trace export → normalized calls and tool results (lib/otlp, SPEC §2.7). Spans are made
// by the real OpenTelemetry SDK and serialized by its own OTLP serializers (protobuf and JSON).
import { context, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Root } from "protobufjs/light";
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import type { NormalizedCall } from "@/lib/domain/calls";
import { decodeTraceRequestJson } from "@/lib/otlp/json";
import { holdsMoreMessagesThan } from "@/lib/otlp/messageCount";
import { MAX_EXPORT_MESSAGES, OtlpDecodeError } from "@/lib/otlp/model";
import descriptor from "@/lib/otlp/proto/trace.json";
import { prepareOtlp, readOtlp } from "@/lib/otlp/prepare";
import { decodeTraceRequestProtobuf, encodeStatusProtobuf, encodeTraceResponseProtobuf } from "@/lib/otlp/protobuf";
import { DESCRIPTOR, descriptorText } from "@/scripts/otlp-descriptor";

const T0 = 1_767_268_800_000; // ms

/** Spans recorded by the SDK (resource service.name agent-x, pid 4242, host h1). */
function record(build: (tracer: ReturnType<BasicTracerProvider["getTracer"]>) => void) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "agent-x", "process.pid": 4242, "process.executable.name": "node", "host.name": "h1" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  build(provider.getTracer("test"));
  return exporter.getFinishedSpans();
}

function span(tracer: ReturnType<BasicTracerProvider["getTracer"]>, name: string, attributes: Attributes, fill: (s: Span) => void = () => {}, ms = 1500): Span {
  const s = tracer.startSpan(name, { attributes, startTime: T0 });
  fill(s);
  s.end(T0 + ms);
  return s;
}

const both = (spans: ReturnType<typeof record>) => {
  const proto = decodeTraceRequestProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!);
  const json = decodeTraceRequestJson(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString("utf8"));
  return { proto, json };
};

const calls = (spans: ReturnType<typeof record>): NormalizedCall[] => readOtlp(both(spans).proto, (c) => c, (e) => e).calls;

const chatAttributes = {
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "openai",
  "gen_ai.request.model": "gpt-4o",
  "gen_ai.response.model": "gpt-4o-2024-08-06",
  "gen_ai.response.id": "chatcmpl-1",
  "gen_ai.request.max_tokens": 512,
  "gen_ai.usage.input_tokens": 120,
  "gen_ai.usage.output_tokens": 30,
  "gen_ai.response.finish_reasons": ["stop"],
  "gen_ai.conversation.id": "conv-1",
  "session.id": "sess-1",
  "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "You are terse." }]),
  "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "list files" }] }]),
  "gen_ai.output.messages": JSON.stringify([{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "a.txt" }, { type: "tool_call", id: "call_1", name: "bash", arguments: { cmd: "ls" } }] }]),
};

describe("OTLP decoding", () => {
  it("protobuf and JSON give the same request: hex ids, exact nanoseconds, typed attributes, events, status", () => {
    const spans = record((t) => span(t, "chat gpt-4o", chatAttributes, (s) => {
      s.addEvent("gen_ai.user.message", { content: "hi" }, T0 + 1);
      s.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });
    }));
    const { proto, json } = both(spans);
    expect(json).toEqual(proto);
    const s = proto.resourceSpans[0].scopeSpans[0].spans[0];
    expect(s.traceId).toBe(spans[0].spanContext().traceId);
    expect(s.spanId).toBe(spans[0].spanContext().spanId);
    expect(s.startNs).toBe(1_767_268_800_000_000_000n);
    expect(s.endNs).toBe(1_767_268_801_500_000_000n);
    expect(s.attributes["gen_ai.usage.input_tokens"]).toBe(120);
    expect(s.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(s.events[0]).toMatchObject({ name: "gen_ai.user.message", timeNs: 1_767_268_800_001_000_000n, attributes: { content: "hi" } });
    expect(s.status).toEqual({ code: 2, message: "boom" });
    expect(proto.resourceSpans[0].resource["process.pid"]).toBe(4242);
  });

  it("refuses bodies that are not OTLP", () => {
    expect(() => decodeTraceRequestJson("not json")).toThrow(OtlpDecodeError);
    expect(() => decodeTraceRequestJson("[1,2]")).toThrow(OtlpDecodeError);
    expect(() => decodeTraceRequestJson('{"resourceSpans": 3}')).toThrow(OtlpDecodeError);
    expect(decodeTraceRequestProtobuf(Buffer.alloc(0))).toEqual({ resourceSpans: [] });
  });

  it("rejects GenAI spans without ids or start time, alone", () => {
    const text = (spans: object[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
    const attributes = [{ key: "gen_ai.operation.name", value: { stringValue: "chat" } }];
    const batch = prepareOtlp(decodeTraceRequestJson(text([
      { traceId: "", spanId: "b7ad6b7169203331", startTimeUnixNano: "1", attributes },
      { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", attributes },
      { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203332", startTimeUnixNano: "1767268800000000000", attributes },
    ])));
    expect(batch).toMatchObject({ rejected: 2, reasons: ["span b7ad6b7169203331: invalid trace or span id", "span b7ad6b7169203331: no start time"] });
    expect(batch.calls.map((p) => p.call.call_id)).toEqual(["0af7651916cd43dd8448eb211c80319cb7ad6b7169203332"]);
  });

  it("keeps nanoseconds beyond 2^53 exact in JSON sent as numbers", () => {
    const text = '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","startTimeUnixNano":1767268800123456789,"endTimeUnixNano":"1767268801123456789"}]}]}]}';
    const s = decodeTraceRequestJson(text).resourceSpans[0].scopeSpans[0].spans[0];
    expect(s.startNs).toBe(1767268800123456789n);
    expect(s.endNs).toBe(1767268801123456789n);
  });

  it("encodes a partial success and an error status", () => {
    expect(encodeTraceResponseProtobuf(0, "")).toHaveLength(0);
    expect([...encodeTraceResponseProtobuf(2, "x")]).toEqual([0x0a, 0x05, 0x08, 0x02, 0x12, 0x01, 0x78]);
    expect([...encodeStatusProtobuf(3, "x")]).toEqual([0x08, 0x03, 0x12, 0x01, 0x78]);
  });
});

// Protobuf bodies written field by field, to reach what the SDK's serializer never sends.
const varint = (n: number | bigint): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  for (; v >= 0x80n; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80);
  return [...out, Number(v)];
};
const tag = (n: number, wire: number) => varint(n * 8 + wire);
const len = (n: number, ...payload: (Buffer | number[] | string)[]): Buffer => {
  const body = Buffer.concat(payload.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));
  return Buffer.concat([Buffer.from([...tag(n, 2), ...varint(body.length)]), body]);
};
const fixed64 = (n: number, v: bigint) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(v); return Buffer.concat([Buffer.from(tag(n, 1)), b]); };
const stringValue = (text: string | Buffer) => len(1, text);
const attribute = (key: string, value: Buffer) => len(9, len(1, key), len(2, value));
/** A request holding one span with these fields (ids and start time set). */
const oneSpan = (...fields: Buffer[]) => len(1, len(2, len(2, len(1, Buffer.alloc(16, 0xab)), len(2, Buffer.alloc(8, 0xcd)), fixed64(7, 1_767_268_800_123_456_789n), ...fields)));
const decodedSpan = (body: Buffer) => decodeTraceRequestProtobuf(body).resourceSpans[0].scopeSpans[0].spans[0];
const decodeMessage = (body: Buffer) => { try { decodeTraceRequestProtobuf(body); return null; } catch (e) { expect(e).toBeInstanceOf(OtlpDecodeError); return (e as Error).message; } };

describe("OTLP protobuf decoding (protobufjs, opentelemetry-proto definitions)", () => {
  it("the committed descriptor is the one generated from the vendored .proto files", () => {
    expect(fs.readFileSync(DESCRIPTOR, "utf8")).toBe(descriptorText());
  });

  it("reads every AnyValue variant, exact fixed64 nanoseconds, negative int64", () => {
    const s = decodedSpan(oneSpan(
      len(5, "chat"),
      attribute("s", stringValue("é")),
      attribute("b", Buffer.from([...tag(2, 0), 1])),
      attribute("i", Buffer.from([...tag(3, 0), ...varint(-5)])),
      attribute("d", Buffer.from([...tag(4, 1), ...new Uint8Array(new Float64Array([1.5]).buffer)])),
      attribute("a", len(5, len(1, stringValue("x")), len(1, Buffer.from([...tag(3, 0), 7])))),
      attribute("kv", len(6, len(1, len(1, "k"), len(2, stringValue("v"))))),
      attribute("bytes", len(7, Buffer.from([1, 2, 3]))),
      attribute("empty", Buffer.alloc(0)),
    ));
    expect(s).toMatchObject({ traceId: "ab".repeat(16), spanId: "cd".repeat(8), parentSpanId: "", name: "chat", startNs: 1_767_268_800_123_456_789n, endNs: 0n, status: { code: 0, message: "" } });
    expect({ ...s.attributes }).toEqual({ s: "é", b: true, i: -5, d: 1.5, a: ["x", 7], kv: { k: "v" }, bytes: "AQID", empty: null });
  });

  it("ignores unknown fields at every level, of every wire type", () => {
    const unknown = [Buffer.from([...tag(99, 0), 1]), len(98, "junk"), fixed64(97, 1n), Buffer.from([...tag(96, 5), 0, 0, 0, 0]), Buffer.from([...tag(95, 3), ...tag(1, 0), 1, ...tag(95, 4)])];
    const plain = oneSpan(len(5, "chat"), attribute("k", stringValue("v")));
    const noisy = Buffer.concat([len(1, len(2, len(2, len(1, Buffer.alloc(16, 0xab)), len(2, Buffer.alloc(8, 0xcd)), fixed64(7, 1_767_268_800_123_456_789n), ...unknown,
      len(5, "chat"), len(9, len(1, "k"), ...unknown, len(2, stringValue("v"), ...unknown))), ...unknown), ...unknown), ...unknown]);
    expect(decodeTraceRequestProtobuf(noisy)).toEqual(decodeTraceRequestProtobuf(plain));
  });

  it("a known field in the wrong wire type is skipped like an unknown one (the protobuf rule)", () => {
    const s = decodedSpan(oneSpan(Buffer.from([...tag(5, 0), 1]), attribute("k", stringValue("v"))));
    expect(s.name).toBe("");
    expect({ ...s.attributes }).toEqual({ k: "v" });
  });

  it("reads invalid UTF-8 with replacement characters, as OTLP/JSON bodies are read, instead of refusing the export", () => {
    expect(decodedSpan(oneSpan(len(5, Buffer.from([0x61, 0xc3, 0x28])))).name).toBe("a\ufffd(");
  });

  it("refuses malformed bodies, naming the problem", () => {
    expect(decodeMessage(Buffer.from("this is not otlp"))).toMatch(/malformed protobuf: invalid wire type 4/);
    expect(decodeMessage(Buffer.from([0x0a, 0x05, 0x01]))).toMatch(/truncated protobuf message/);
    expect(decodeMessage(oneSpan(len(5, "chat")).subarray(0, 30))).toMatch(/truncated protobuf message/);
    expect(decodeMessage(Buffer.from([...tag(1, 6)]))).toMatch(/invalid wire type 6/);
    expect(decodeMessage(Buffer.from([0x02, 0x00]))).toMatch(/field number 0/);
    // a nested length that runs past its parent's end
    expect(decodeMessage(Buffer.concat([len(1, Buffer.from([...tag(2, 2), 50, 0])), len(1, Buffer.alloc(60))]))).toMatch(/truncated protobuf message/);
    expect(decodeTraceRequestProtobuf(Buffer.alloc(0))).toEqual({ resourceSpans: [] });
  });

  it("refuses hostile nesting with a decode error, however deep, and reads moderate nesting", () => {
    /** AnyValue{array_value{values: [AnyValue{…}]}} `levels` deep: the headers first, as concatenating level by level is quadratic. */
    const nested = (levels: number) => {
      const leaf = stringValue("leaf");
      const headers: number[][] = [];
      for (let i = 0, size = leaf.length; i < levels; i++) {
        const values = [...tag(1, 2), ...varint(size)];
        const array = [...tag(5, 2), ...varint(size + values.length)];
        headers.push([...array, ...values]);
        size += values.length + array.length;
      }
      return oneSpan(attribute("deep", Buffer.concat([Buffer.from(headers.reverse().flat()), leaf])));
    };
    expect(decodeMessage(nested(100_000))).toMatch(/nested more than 100 deep/);
    expect(decodeMessage(nested(60))).toMatch(/nested more than 100 deep/);
    let value: unknown = decodedSpan(nested(40)).attributes.deep;
    for (let i = 0; i < 40; i++) value = (value as unknown[])[0];
    expect(value).toBe("leaf");
  });
  it("refuses an export of more messages than it may hold before decoding it (5 million empty spans were 3 GB)", () => {
    const emptySpans = (n: number) => len(1, len(2, Buffer.from(new Uint8Array(2 * n).map((_, i) => (i % 2 ? 0 : 0x12))))); // spans = 2: field 2, length 0
    const emptyAttributes = (n: number) => oneSpan(Buffer.from(new Uint8Array(2 * n).map((_, i) => (i % 2 ? 0 : 0x4a)))); // attributes = 9
    expect(decodeMessage(emptySpans(5_000_000))).toMatch(/more than 500,000 protobuf messages.*smaller batches/);
    expect(decodeMessage(emptyAttributes(MAX_EXPORT_MESSAGES))).toMatch(/more than 500,000 protobuf messages/);
    expect(decodeMessage(emptySpans(MAX_EXPORT_MESSAGES - 1))).toMatch(/more than 500,000/); // with its resource and scope: one too many
    // an (empty) group first: before, the count stopped there, and 2.5 million resources were decoded (800 MB)
    const groupFirst = Buffer.concat([Buffer.from([...tag(15, 3), ...tag(15, 4)]), Buffer.from(new Uint8Array(2 * 2_000_000).map((_, i) => (i % 2 ? 0 : 0x0a)))]);
    expect(decodeMessage(groupFirst)).toMatch(/more than 500,000 protobuf messages/);
    // what is counted: messages at every level the schema nests, not bytes, not scalars
    const request = Root.fromJSON(descriptor).lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
    request.root.resolveAll();
    expect(holdsMoreMessagesThan(emptySpans(8), request, 10)).toBe(false); // 8 spans + scope + resource
    expect(holdsMoreMessagesThan(emptySpans(9), request, 10)).toBe(true);
    const span = oneSpan(attribute("a", stringValue("x")), attribute("b", stringValue("y"))); // resource, scope, span, 2 × (KeyValue + AnyValue)
    expect([holdsMoreMessagesThan(span, request, 6), holdsMoreMessagesThan(span, request, 7)]).toEqual([true, false]);
    expect(decodeTraceRequestProtobuf(emptySpans(1_000)).resourceSpans[0].scopeSpans[0].spans).toHaveLength(1_000);
    // OTLP/JSON: 3.3 million empty spans in 10 MB were 1.6 GB and 7 s
    const jsonSpans = (n: number) => `{"resourceSpans":[{"scopeSpans":[{"spans":[${Array(n).fill("{}").join(",")}]}]}]}`;
    expect(() => decodeTraceRequestJson(jsonSpans(3_300_000))).toThrow(/more than 500,000 JSON objects and arrays.*smaller batches/);
    expect(decodeTraceRequestJson(jsonSpans(1_000)).resourceSpans[0].scopeSpans[0].spans).toHaveLength(1_000);
  });
});

describe("GenAI spans → calls", () => {
  it("a chat span with messages as attributes", () => {
    const spans = record((t) => span(t, "chat gpt-4o", { ...chatAttributes, "server.address": "api.openai.com" }));
    const [c] = calls(spans);
    const ctx = spans[0].spanContext();
    expect(c).toMatchObject({
      call_id: ctx.traceId + ctx.spanId, trace_id: "chatcmpl-1", session_id: "sess-1", conversation_id: "conv-1",
      agent_name: "agent-x", pid: 4242, process_name: "node", host: "h1", provider: "openai", model: "gpt-4o-2024-08-06",
      server_address: "api.openai.com", start_ns: 1_767_268_800_000_000_000n, end_ns: 1_767_268_801_500_000_000n,
      status_code: 200, error: null, max_tokens: 512, input_tokens: 120, output_tokens: 30, finish_reasons: ["stop"],
      system_instructions: [{ type: "text", content: "You are terse." }],
      input_messages: [{ role: "user", parts: [{ type: "text", content: "list files" }] }],
    });
    expect(c.output_messages[0].parts[1]).toEqual({ type: "tool_call", id: "call_1", name: "bash", arguments: { cmd: "ls" } });
  });

  it("the older event form", () => {
    const spans = record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o" }, (s) => {
      s.addEvent("gen_ai.system.message", { content: "Be brief." });
      s.addEvent("gen_ai.user.message", { content: "weather?" });
      s.addEvent("gen_ai.assistant.message", { tool_calls: JSON.stringify([{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }]) });
      s.addEvent("gen_ai.tool.message", { id: "c1", content: "rain" });
      s.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", message: JSON.stringify({ role: "assistant", content: "Rain in Oslo." }) });
    }));
    const [c] = calls(spans);
    expect(c.provider).toBe("openai");
    expect(c.system_instructions).toEqual([{ type: "text", content: "Be brief." }]);
    expect(c.input_messages).toEqual([
      { role: "user", parts: [{ type: "text", content: "weather?" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "weather", arguments: { city: "Oslo" } }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "rain" }] },
    ]);
    expect(c.output_messages).toEqual([{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "Rain in Oslo." }] }]);
    expect(c.finish_reasons).toEqual(["stop"]);
    expect(c.status_code).toBe(200);
  });

  it("an errored span: status ERROR, error.type, exception event, HTTP 429", () => {
    const spans = record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "error.type": "RateLimitError", "http.response.status_code": 429 }, (s) => {
      s.recordException({ name: "RateLimitError", message: "Rate limit reached for gpt-4o" });
      s.setStatus({ code: SpanStatusCode.ERROR, message: "Rate limit reached for gpt-4o" });
    }));
    const [c] = calls(spans);
    expect(c.status_code).toBe(429);
    expect(c.error).toContain("RateLimitError");
    expect(c.error).toContain("Rate limit reached");
    // error.type alone as a status code
    const [d] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "error.type": "503" }, (s) => s.setStatus({ code: SpanStatusCode.ERROR }))));
    expect(d).toMatchObject({ status_code: 503, error: "503" });
  });

  it("an exception on a span marked OK was handled: not a failure", () => {
    const [c] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.output.messages": '[{"role":"assistant","parts":[{"type":"text","content":"ok"}]}]' }, (s) => {
      s.recordException({ name: "APIConnectionError", message: "reset, retried" });
      s.setStatus({ code: SpanStatusCode.OK });
    })));
    expect(c).toMatchObject({ status_code: 200, error: null });
  });

  it("without captured content a successful span has no status (no false empty response)", () => {
    const [c] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" })));
    expect(c).toMatchObject({ status_code: null, error: null, input_messages: [], output_messages: [] });
    // the older event form with content capture off: a gen_ai.choice with its finish reason only
    const [e] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.system": "az.ai.inference", "gen_ai.request.model": "m" }, (s) => s.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop" }))));
    expect(e).toMatchObject({ status_code: null, error: null, finish_reasons: ["stop"] });
    // opentelemetry-instrumentation-openai-v2 keeps the message's role without its content
    const [roleOnly] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "m" }, (s) => s.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", message: JSON.stringify({ role: "assistant" }) }))));
    expect(roleOnly).toMatchObject({ status_code: null, error: null });
    // an output attribute or completion event that cannot be read (JSON cut short by an attribute length limit)
    const cutShort = '[{"role":"assistant","parts":[{"type":"text","content":"It rai';
    const [unreadable] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.output.messages": cutShort })));
    expect(unreadable).toMatchObject({ status_code: null, error: null, output_messages: [] });
    const [unreadableEvent] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" }, (s) => s.addEvent("gen_ai.content.completion", { "gen_ai.completion": cutShort }))));
    expect(unreadableEvent).toMatchObject({ status_code: null, error: null });
    // the same cut text as a gen_ai.choice's message; plain text there is what was said
    const [unreadableChoice] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" }, (s) => s.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", message: '{"role":"assistant","content":"It rai' }))));
    expect(unreadableChoice).toMatchObject({ status_code: null, error: null });
    const [plainChoice] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" }, (s) => s.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", message: "It rains." }))));
    expect(plainChoice).toMatchObject({ status_code: 200, output_messages: [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "It rains." }] }] });
    // an HTTP status of success on a span whose output was not captured (botocore's Bedrock spans)
    const [bedrock] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.system": "aws.bedrock", "gen_ai.request.model": "m", "http.status_code": 200 })));
    expect(bedrock).toMatchObject({ status_code: null, error: null });
    const [noneSaid] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" }, (s) => s.addEvent("gen_ai.content.completion", {}))));
    expect(noneSaid).toMatchObject({ status_code: null });
    // an output that reads as no messages at all is an empty answer
    const [none] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.output.messages": "[]" })));
    expect(none).toMatchObject({ status_code: 200, output_messages: [] });
    // with content, an empty answer is still one
    const [empty] = calls(record((t) => span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "m" }, (s) => s.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", message: JSON.stringify({ role: "assistant", content: "" }) }))));
    expect(empty).toMatchObject({ status_code: 200 });
  });

  it("the agent name of the enclosing invoke_agent span", () => {
    const spans = record((t) => {
      const agent = t.startSpan("invoke_agent planner", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner" }, startTime: T0 });
      const child = t.startSpan("chat", { attributes: { "gen_ai.operation.name": "chat" }, startTime: T0 }, trace.setSpan(context.active(), agent));
      child.end(T0 + 10);
      agent.end(T0 + 20);
    });
    expect(calls(spans).map((c) => c.agent_name)).toEqual(["planner"]);
  });

  it("without a session.id the session is the process, whichever batch the invoke_agent span comes in", () => {
    const spans = record((t) => {
      const agent = t.startSpan("invoke_agent planner", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner" }, startTime: T0 });
      const child = t.startSpan("chat", { attributes: { "gen_ai.operation.name": "chat" }, startTime: T0 }, trace.setSpan(context.active(), agent));
      child.end(T0 + 10);
      const tool = t.startSpan("execute_tool bash", { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "t1" }, startTime: T0 }, trace.setSpan(context.active(), agent));
      tool.end(T0 + 15);
      agent.end(T0 + 20);
    });
    const read = (batch: typeof spans) => readOtlp(both(batch).proto, (c) => c, (e) => e);
    const together = read(spans);
    const [alone] = read(spans.filter((s) => s.name === "chat")).calls; // exported before its parent ended
    const [toolAlone] = read(spans.filter((s) => s.name.startsWith("execute_tool"))).events;
    expect(together.calls[0].agent_name).toBe("planner");
    expect(alone.agent_name).toBe("agent-x");
    expect(alone.session_id).toBe(together.calls[0].session_id);
    expect((toolAlone as { session_id: string }).session_id).toBe(together.calls[0].session_id);
    expect((together.events[0] as { session_id: string }).session_id).toBe(together.calls[0].session_id);
  });

  it("tool calls without ids (Gemini): the same id in every call of the conversation, answered in order", () => {
    const call = { type: "tool_call", name: "get_weather", arguments: { city: "Oslo" } };
    const user = { role: "user", parts: [{ type: "text", content: "weather in Oslo, twice?" }] };
    const gemini = (input: unknown[], output: unknown[]) => ({ "gen_ai.operation.name": "generate_content", "gen_ai.provider.name": "gcp.gemini", "gen_ai.request.model": "gemini-2.5-flash", "gen_ai.input.messages": JSON.stringify(input), "gen_ai.output.messages": JSON.stringify(output) });
    const [first, second] = calls(record((t) => {
      span(t, "generate_content", gemini([user], [{ role: "model", parts: [call, call] }]));
      span(t, "generate_content", gemini(
        [user, { role: "model", parts: [call, call] }, { role: "user", parts: [{ type: "tool_call_response", response: "rain" }, { type: "tool_call_response", response: "still rain" }] }],
        [{ role: "model", parts: [{ type: "text", content: "Rain." }] }],
      ));
    }));
    // an answer of two function calls is not an empty one
    expect(first.status_code).toBe(200);
    const ids = first.output_messages[0].parts.map((p) => (p as { id: string }).id);
    expect(ids[0]).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(2); // the same call twice: two calls
    // the next call's history names them alike, and its responses answer them in order
    expect(second.input_messages[1].parts.map((p) => (p as { id: string }).id)).toEqual(ids);
    expect(second.input_messages[2].parts).toEqual([
      { type: "tool_call_response", id: ids[0], response: "rain" },
      { type: "tool_call_response", id: ids[1], response: "still rain" },
    ]);
    // another conversation (another first question) calling the same tool gets other ids; the
    // same arguments in another key order are the same call
    const [other, reordered] = calls(record((t) => {
      span(t, "generate_content", gemini([{ role: "user", parts: [{ type: "text", content: "and Bergen?" }] }], [{ role: "model", parts: [call] }]));
      span(t, "generate_content", gemini([user], [{ role: "model", parts: [{ ...call, arguments: { units: "C", city: "Oslo" } }, { ...call, arguments: { city: "Oslo", units: "C" } }] }]));
    }));
    expect((other.output_messages[0].parts[0] as { id: string }).id).not.toBe(ids[0]);
    const [a, b] = reordered.output_messages[0].parts.map((p) => (p as { id: string }).id);
    expect(a).not.toBe(ids[0]);
    expect(b).not.toBe(a); // the second identical call of that history
  });

  it("an OpenInference LLM span", () => {
    const spans = record((t) => span(t, "ChatCompletion", {
      "openinference.span.kind": "LLM", "llm.model_name": "claude-sonnet-4", "llm.provider": "anthropic", "session.id": "s-oi",
      "llm.token_count.prompt": 50, "llm.token_count.completion": 7, "llm.invocation_parameters": '{"max_tokens": 1024}',
      "llm.input_messages.0.message.role": "system", "llm.input_messages.0.message.content": "Be kind.",
      "llm.input_messages.1.message.role": "user", "llm.input_messages.1.message.content": "hello",
      "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "hi!",
      "llm.output_messages.0.message.tool_calls.0.tool_call.id": "t1",
      "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "search",
      "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"q":"x"}',
    }));
    const [c] = calls(spans);
    expect(c).toMatchObject({
      session_id: "s-oi", provider: "anthropic", model: "claude-sonnet-4", input_tokens: 50, output_tokens: 7, max_tokens: 1024, status_code: 200,
      system_instructions: [{ type: "text", content: "Be kind." }],
      input_messages: [{ role: "user", parts: [{ type: "text", content: "hello" }] }],
      output_messages: [{ role: "assistant", parts: [{ type: "text", content: "hi!" }, { type: "tool_call", id: "t1", name: "search", arguments: { q: "x" } }] }],
    });
  });
});

describe("tool calls sent without an id in the OpenAI and OpenInference forms", () => {
  it("are kept and given the id the parts format's would get (before, they were dropped: the answer read as empty)", () => {
    const [openaiForm, openInference] = calls(record((t) => {
      span(t, "chat", {
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.conversation.id": "c-idless",
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", tool_calls: [{ type: "function", function: { name: "search", arguments: '{"q":"x"}' } }] }]),
      });
      span(t, "ChatCompletion", {
        "openinference.span.kind": "LLM", "llm.model_name": "m", "session.id": "s-idless",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "search",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"q":"x"}',
      });
    }));
    for (const c of [openaiForm, openInference]) {
      expect(c.status_code).toBe(200);
      expect(c.output_messages[0].parts).toEqual([{ type: "tool_call", id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: "search", arguments: { q: "x" } }]);
    }
    // the same call in the parts format gets the same id
    const [partsForm] = calls(record((t) => span(t, "chat", {
      "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.conversation.id": "c-idless",
      "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", name: "search", arguments: { q: "x" } }] }]),
    })));
    expect(partsForm.output_messages[0].parts[0]).toEqual(openaiForm.output_messages[0].parts[0]);
  });
});

describe("execute_tool spans → tool results; other spans", () => {
  it("a tool span is a tool_result event; a failing one is not a success", () => {
    const spans = record((t) => {
      span(t, "execute_tool bash", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.arguments": '{"cmd":"ls"}', "gen_ai.tool.call.result": "a.txt", "session.id": "sess-1" }, () => {}, 40);
      span(t, "execute_tool bash", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_2", "error.type": "ToolError", "session.id": "sess-1" }, (s) => s.setStatus({ code: SpanStatusCode.ERROR, message: "exit code 2" }), 40);
    });
    const batch = prepareOtlp(both(spans).proto);
    expect(batch.calls).toHaveLength(0);
    expect(batch.events).toHaveLength(2);
    expect(batch.events[0]).toMatchObject({ kind: "tool_result", session_id: "sess-1", tool_call_id: "call_1", name: "bash", success: true, duration_ns: 40_000_000n, at_ns: 1_767_268_800_040_000_000n, stored: { response: "a.txt" } });
    expect(batch.events[1]).toMatchObject({ kind: "tool_result", tool_call_id: "call_2", success: false, stored: { error: "ToolError; exit code 2" } });
    expect((batch.events[1] as { finding: { type: string } }).finding.type).toBe("tool_failure");
  });

  it("non-GenAI spans are ignored, not rejected; unusable GenAI spans are rejected alone", () => {
    const spans = record((t) => {
      span(t, "GET /", { "http.request.method": "GET" });
      span(t, "chat", { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "x".repeat(300) });
      span(t, "chat", { "gen_ai.operation.name": "chat" });
    });
    const batch = prepareOtlp(both(spans).proto);
    expect(batch).toMatchObject({ ignored: 1, rejected: 1 });
    expect(batch.calls).toHaveLength(1);
    expect(batch.reasons[0]).toMatch(/provider/);
  });
});

describe("what an export may cost", () => {
  /** An OTLP/JSON export of the given spans (ids made up, one resource), decoded. */
  const exportOf = (...spans: object[]) =>
    decodeTraceRequestJson(
      JSON.stringify({
        resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "agent-j" } }] }, scopeSpans: [{ spans: spans.map((s, i) => ({ traceId: "1".repeat(32), spanId: String(i + 1).padStart(16, "0"), name: "chat", startTimeUnixNano: "1767268800000000000", endTimeUnixNano: "1767268801000000000", ...s })) }] }],
      }),
    );
  const attr = (key: string, stringValue: string) => ({ key, value: { stringValue } });
  const chat = [attr("gen_ai.operation.name", "chat"), attr("gen_ai.provider.name", "openai"), attr("gen_ai.request.model", "gpt-4o")];

  it("JSON text inside attributes counts toward the export's 500,000 objects: past them the span is rejected alone", () => {
    const bomb = `[${"{},".repeat(MAX_EXPORT_MESSAGES)}{}]`; // 1.5 MB of text, half a million objects once decoded
    const batch = prepareOtlp(exportOf({ attributes: [...chat, attr("gen_ai.input.messages", bomb)] }, { attributes: [...chat, attr("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: "hi" }] }]))] }));
    expect(batch).toMatchObject({ rejected: 1 });
    expect(batch.reasons[0]).toMatch(/JSON attributes hold more than 500,000 objects and arrays/);
    expect(batch.calls).toHaveLength(1);
    expect(batch.calls[0].call.call_id).toBe(`${"1".repeat(32)}${"2".padStart(16, "0")}`);
  });

  it("reads 60,000 system-message events in one pass (each copied the whole list before: quadratic)", () => {
    const events = Array.from({ length: 60_000 }, (_, i) => ({ timeUnixNano: "1767268800000000000", name: "gen_ai.system.message", attributes: [attr("content", `rule ${i}`)] }));
    const [c] = calls0(exportOf({ attributes: chat, events }));
    expect(c.system_instructions).toHaveLength(60_000);
    expect(c.system_instructions?.[59_999]).toEqual({ type: "text", content: "rule 59999" });
  });

  it("reads enums written by name in OTLP/JSON (protobuf's JSON mapping), as integers", () => {
    const request = exportOf({ kind: "SPAN_KIND_CLIENT", status: { code: "STATUS_CODE_ERROR", message: "boom" }, attributes: chat });
    expect(request.resourceSpans[0].scopeSpans[0].spans[0]).toMatchObject({ kind: 3, status: { code: 2, message: "boom" } });
    expect(() => exportOf({ kind: "SPAN_KIND_SIDEWAYS" })).toThrow(/kind: expected an integer/);
  });
});

const calls0 = (request: ReturnType<typeof decodeTraceRequestJson>): NormalizedCall[] => readOtlp(request, (c) => c, (e) => e).calls;
