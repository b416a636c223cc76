// Generators for fuzzing the ingest routes: valid payloads of each route (normalized calls,
// raw OpenAI/Anthropic exchanges in JSON and SSE, lifecycle events), structural mutations of
// them, hostile values (odd numbers, unicode, deep nesting, long strings), and mutations of
// the request text itself (truncation, garbage, BOM, invalid UTF-8, wrong content types).
import fc from "fast-check";

/** A JSON value written verbatim into the request text (numbers JSON.stringify cannot write, deep nesting). */
export class Raw {
  constructor(readonly text: string) {}
}

/** JSON text of `value`, with every `Raw` written as its text. */
export function encode(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  if (text === undefined) return "";
  return raws.length ? text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i: string) => raws[Number(i)]) : text;
}

// ---------------------------------------------------------------------------------------------
// Hostile values

const NS_NOW = BigInt(Date.now()) * 1_000_000n;
const ns = (offsetMs: number) => (NS_NOW - 3_600_000_000_000n + BigInt(offsetMs) * 1_000_000n).toString();

export const weirdNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(-1, -0, 0, 0.5, 1.5, -2.25, 1e21, 1e308, -1e308, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 32, 2 ** 53, 2 ** 63, 2 ** 64, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
  fc.integer(),
  fc.double(),
  fc
    .constantFrom(
      "1e400", "-1e400", "1E3", "1.0", "-0", "0.0000001",
      "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
      "99999999999999999999", "123456789012345678901234567890", "1767268800000000000.5", "-1767268800000000000",
    )
    .map((t) => new Raw(t)),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((b) => new Raw(b.toString())),
  // numbers as strings, which the ns fields accept when they are digits
  fc.constantFrom("0", "-1", "1.5", "1e3", "99999999999999999999", "9223372036854775808", "18446744073709551615", "00000000000000000001", " 1", "0x10", "Infinity", "NaN"),
);

export const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "", " ", "\u0000", "a\u0000b", "\\u0000", "\ud800", "\udfff", "x\ud83d", "\udc00y", "\u202e\u202d\u200f", "\ufeff", "\uffff\ufffe", "🙂",
    "'; DROP TABLE \"Call\"; --", "%s%n%x", "../../etc/passwd", "null", "0", "[object Object]", "__proto__", "constructor", "data: [DONE]",
    "Bearer sk-proj-abcdefghijklmnopqrstuvwx", "\r\n\r\n", "\t",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(257, 513, 1025, 70_000).map((n) => "x".repeat(n)),
  fc.constantFrom(1_000_001).map((n) => "\u00e9".repeat(n)),
);

/** Arrays or objects nested `depth` levels deep, around the 512-level limit of lib/json.ts. */
export const deepValue: fc.Arbitrary<Raw> = fc
  .tuple(fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(511, 512, 513, 1000, 100_000)), fc.boolean())
  .map(([depth, objects]) =>
    new Raw(objects ? '{"a":'.repeat(depth) + "1" + "}".repeat(depth) : "[".repeat(depth) + "]".repeat(depth)),
  );

export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: weirdNumber, weight: 4 },
  { arbitrary: weirdString, weight: 4 },
  { arbitrary: fc.constantFrom(null, true, false, {}, [], [null], { "": "" }, [1, "a", {}]), weight: 2 },
  { arbitrary: deepValue, weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
);

// ---------------------------------------------------------------------------------------------
// Structural mutations of a JSON tree

type Path = Array<string | number>;

/** Every path of the tree (the root is []), Raw leaves included but not entered. */
function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (value instanceof Raw || value === null || typeof value !== "object") return out;
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else for (const k of Object.keys(value)) paths((value as Record<string, unknown>)[k], [...at, k], out);
  return out;
}

/** A shallow copy with own property `key` set (defineProperty, so "__proto__" stays a plain key). */
function withKey(obj: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) Object.defineProperty(copy, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** `value` with the node at `path` rewritten by `edit` (copies along the path). */
function update(value: unknown, path: Path, edit: (node: unknown) => unknown): unknown {
  if (path.length === 0) return edit(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = value.slice();
    copy[head as number] = update(value[head as number], rest, edit);
    return copy;
  }
  const obj = value as Record<string, unknown>;
  return withKey(obj, head as string, update(obj[head as string], rest, edit));
}

function removeAt(value: unknown, path: Path): unknown {
  if (path.length === 0) return value;
  const parent = path.slice(0, -1);
  const last = path[path.length - 1];
  return update(value, parent, (node) => {
    if (Array.isArray(node)) return node.filter((_v, i) => i !== last);
    const copy: Record<string, unknown> = {};
    for (const k of Object.keys(node as object)) if (k !== last) Object.defineProperty(copy, k, { value: (node as Record<string, unknown>)[k], enumerable: true, writable: true, configurable: true });
    return copy;
  });
}

export type Mutation =
  | { op: "replace"; at: number; value: unknown }
  | { op: "delete"; at: number }
  | { op: "setKey"; at: number; key: string; value: unknown }
  | { op: "duplicate"; at: number };

const FIELD_NAMES = [
  "call_id", "session_id", "conversation_id", "turn_id", "trace_id", "agent_name", "pid", "host", "process_name", "provider", "model",
  "start_ns", "end_ns", "duration_ns", "at_ns", "status_code", "error", "response_body", "is_sse", "sse_event_count", "sse_done",
  "cancelled", "max_tokens", "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "finish_reasons",
  "system_instructions", "input_messages", "output_messages", "tools", "parts", "role", "type", "content", "id", "name",
  "arguments", "response", "is_error", "finish_reason", "request", "response", "status", "headers", "body", "sse", "url", "method",
  "kind", "reason", "exit_code", "signal", "oom", "tool_call_id", "success", "usage", "prompt_tokens", "completion_tokens",
  "choices", "messages", "stream", "max_completion_tokens", "index", "delta", "__proto__", "constructor", "toString",
];

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("replace" as const), at: fc.nat(), value: weirdValue }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("setKey" as const), at: fc.nat(), key: fc.oneof(fc.constantFrom(...FIELD_NAMES), weirdString), value: weirdValue }),
  fc.record({ op: fc.constant("duplicate" as const), at: fc.nat() }),
);

export function applyMutation(value: unknown, m: Mutation): unknown {
  const all = paths(value);
  const path = all[m.at % all.length];
  switch (m.op) {
    case "replace":
      return update(value, path, () => m.value);
    case "delete":
      return removeAt(value, path);
    case "setKey": {
      // on the nearest object at or above the path
      const objects = all.filter((p) => {
        let node: unknown = value;
        for (const k of p) node = (node as Record<string | number, unknown>)[k];
        return node !== null && typeof node === "object" && !Array.isArray(node) && !(node instanceof Raw);
      });
      if (!objects.length) return value;
      return update(value, objects[m.at % objects.length], (node) => withKey(node as Record<string, unknown>, m.key, m.value));
    }
    case "duplicate": {
      const arrays = all.filter((p) => {
        let node: unknown = value;
        for (const k of p) node = (node as Record<string | number, unknown>)[k];
        return Array.isArray(node) && node.length > 0;
      });
      if (!arrays.length) return value;
      return update(value, arrays[m.at % arrays.length], (node) => [...(node as unknown[]), (node as unknown[])[0], ...(node as unknown[])]);
    }
  }
}

/** `base` with 1–4 mutations applied. */
export const mutated = (base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.tuple(base, fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([v, ms]) => ms.reduce(applyMutation, v));

// ---------------------------------------------------------------------------------------------
// Valid payloads. Ids start with "fz-": the test makes them unique per case.

const id = (prefix: string) => fc.integer({ min: 0, max: 1_000_000 }).map((n) => `fz-${prefix}-${n}`);
const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("List the files", "Why does npm test fail?", "Here they are."));
const tokens = fc.integer({ min: 0, max: 200_000 });

const part = fc.oneof(
  text.map((content) => ({ type: "text", content })),
  text.map((content) => ({ type: "reasoning", content })),
  fc.record({ type: fc.constant("tool_call"), id: id("tc"), name: fc.constantFrom("bash", "read_file"), arguments: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ type: fc.constant("tool_call_response"), id: id("tc"), response: fc.jsonValue({ maxDepth: 2 }), is_error: fc.boolean() }, { requiredKeys: ["type", "id", "response"] }),
);
const message = fc.record(
  { role: fc.constantFrom("user", "assistant", "tool", "system"), parts: fc.array(part, { maxLength: 3 }), finish_reason: fc.constantFrom("stop", "length", "tool_calls") },
  { requiredKeys: ["role", "parts"] },
);

export const validCall: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    call_id: id("call"),
    trace_id: id("trace"),
    session_id: id("sess"),
    conversation_id: id("conv"),
    turn_id: id("turn"),
    agent_name: fc.constantFrom("CoshNG", "FuzzAgent"),
    pid: fc.integer({ min: 1, max: 4_000_000 }),
    process_name: fc.constant("node"),
    host: fc.constant("fuzz-host"),
    provider: fc.constantFrom("openai", "anthropic", "dashscope"),
    model: fc.constantFrom("gpt-4o", "claude-sonnet-4-5", "qwen-plus"),
    server_address: fc.constant("api.openai.com"),
    start_ns: fc.integer({ min: 0, max: 1_000_000 }).map(ns),
    end_ns: fc.integer({ min: 1_000_000, max: 2_000_000 }).map(ns),
    status_code: fc.constantFrom(200, 200, 200, 400, 401, 413, 429, 500, 503, 529),
    error: fc.constantFrom(null, "boom", "context_length_exceeded", "Too Many Requests"),
    response_body: fc.constantFrom(null, '{"error":{"message":"overloaded"}}'),
    is_sse: fc.boolean(),
    sse_event_count: fc.integer({ min: 0, max: 500 }),
    sse_done: fc.boolean(),
    cancelled: fc.boolean(),
    max_tokens: tokens,
    input_tokens: tokens,
    output_tokens: tokens,
    cache_read_tokens: tokens,
    cache_creation_tokens: tokens,
    finish_reasons: fc.array(fc.constantFrom("stop", "length", "tool_calls", "content_filter"), { maxLength: 2 }),
    system_instructions: fc.array(part, { maxLength: 2 }),
    input_messages: fc.array(message, { maxLength: 4 }),
    output_messages: fc.array(message, { maxLength: 2 }),
    tools: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ["call_id", "start_ns"] },
);

// Raw exchanges (SPEC §2.2), OpenAI and Anthropic, JSON and SSE.
const OPENAI_URLS = ["https://api.openai.com/v1/chat/completions", "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", "/v1/chat/completions", "not a url"];
const ANTHROPIC_URLS = ["https://api.anthropic.com/v1/messages", "/anthropic/v1/messages"];

const usageNumber = fc.oneof({ arbitrary: tokens, weight: 3 }, { arbitrary: weirdNumber, weight: 1 });

const openaiRequest = fc.record({
  model: fc.constantFrom("gpt-4o", "qwen-plus", "deepseek-chat"),
  max_tokens: usageNumber,
  stream: fc.boolean(),
  messages: fc.array(
    fc.oneof(
      fc.record({ role: fc.constantFrom("system", "user", "assistant"), content: text }),
      fc.record({ role: fc.constant("assistant"), content: fc.constant(null), tool_calls: fc.array(fc.record({ id: id("tc"), type: fc.constant("function"), function: fc.record({ name: fc.constant("bash"), arguments: fc.constantFrom('{"cmd":"ls"}', "{not json", "") }) }), { maxLength: 2 }) }),
      fc.record({ role: fc.constant("tool"), tool_call_id: id("tc"), content: text }),
    ),
    { maxLength: 4 },
  ),
});
const openaiUsage = fc.record({ prompt_tokens: usageNumber, completion_tokens: usageNumber, prompt_tokens_details: fc.record({ cached_tokens: usageNumber }) });
const openaiResponse = fc.record({
  id: id("chatcmpl"),
  object: fc.constant("chat.completion"),
  model: fc.constant("gpt-4o"),
  choices: fc.array(
    fc.record({ index: fc.oneof(fc.nat(3), weirdNumber), finish_reason: fc.constantFrom("stop", "length", "tool_calls", null), message: fc.record({ role: fc.constant("assistant"), content: fc.oneof(text, fc.constant(null)) }) }),
    { maxLength: 2 },
  ),
  usage: openaiUsage,
});
const openaiChunks = fc.tuple(fc.array(text, { maxLength: 4 }), fc.constantFrom("stop", "length", "tool_calls"), openaiUsage, fc.boolean(), fc.oneof(fc.nat(3), weirdNumber)).map(
  ([pieces, finish, usage, done, index]) =>
    [
      ...pieces.map((content) => `data: ${JSON.stringify({ id: "chatcmpl-fz", choices: [{ index, delta: { content } }] })}\n\n`),
      `data: ${encode({ id: "chatcmpl-fz", choices: [{ index: 0, delta: { tool_calls: [{ index, id: "call_1", function: { name: "bash", arguments: '{"cmd":' } }] } }] })}\n\n`,
      `data: ${JSON.stringify({ id: "chatcmpl-fz", choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`,
      `data: ${encode({ id: "chatcmpl-fz", choices: [], usage })}\n\n`,
      done ? "data: [DONE]\n\n" : "",
    ].join(""),
);

const anthropicRequest = fc.record({
  model: fc.constant("claude-sonnet-4-5"),
  max_tokens: usageNumber,
  system: fc.oneof(text, fc.constant([{ type: "text", text: "You are terse." }])),
  stream: fc.boolean(),
  messages: fc.array(
    fc.oneof(
      fc.record({ role: fc.constantFrom("user", "assistant"), content: text }),
      fc.record({ role: fc.constant("assistant"), content: fc.array(fc.record({ type: fc.constant("tool_use"), id: id("tu"), name: fc.constant("bash"), input: fc.jsonValue({ maxDepth: 2 }) }), { maxLength: 2 }) }),
      fc.record({ role: fc.constant("user"), content: fc.array(fc.record({ type: fc.constant("tool_result"), tool_use_id: id("tu"), content: text, is_error: fc.boolean() }), { maxLength: 2 }) }),
    ),
    { maxLength: 4 },
  ),
});
const anthropicUsage = fc.record({ input_tokens: usageNumber, output_tokens: usageNumber, cache_read_input_tokens: usageNumber, cache_creation_input_tokens: usageNumber });
const anthropicResponse = fc.record({
  id: id("msg"),
  type: fc.constant("message"),
  role: fc.constant("assistant"),
  model: fc.constant("claude-sonnet-4-5"),
  content: fc.array(fc.oneof(text.map((t) => ({ type: "text", text: t })), fc.record({ type: fc.constant("tool_use"), id: id("tu"), name: fc.constant("bash"), input: fc.jsonValue({ maxDepth: 2 }) })), { maxLength: 3 }),
  stop_reason: fc.constantFrom("end_turn", "max_tokens", "tool_use", null),
  usage: anthropicUsage,
});
const anthropicEvents = fc.tuple(anthropicUsage, fc.array(text, { maxLength: 3 }), fc.oneof(fc.nat(2), weirdNumber), fc.boolean()).map(([usage, pieces, index, stop]) =>
  [
    { type: "message_start", message: { id: "msg_fz", role: "assistant", model: "claude-sonnet-4-5", usage } },
    { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    ...pieces.map((t) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text: t } })),
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "tu_1", name: "bash", input: {} } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"cmd": "l' } },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage },
    ...(stop ? [{ type: "message_stop" }] : []),
  ]
    .map((e) => `event: ${e.type}\ndata: ${encode(e)}\n\n`)
    .join(""),
);

/** Mutations of SSE text: cut, lines inserted, CR/LF mixed, a BOM. */
const sseMutation = fc.oneof(
  fc.nat().map((n) => (s: string) => s.slice(0, n % (s.length + 1))),
  fc.tuple(fc.nat(), weirdString).map(([n, ins]) => (s: string) => s.slice(0, n % (s.length + 1)) + ins + s.slice(n % (s.length + 1))),
  fc.tuple(fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([n, j]) => (s: string) => s.slice(0, n % (s.length + 1)) + `\n\ndata: ${JSON.stringify(j)}\n\n` + s.slice(n % (s.length + 1))),
  fc.constant((s: string) => s.replace(/\n/g, "\r")),
  fc.constant((s: string) => "\ufeff" + s),
  fc.constant((s: string) => s.replace(/data: /g, "data:")),
  fc.constant((s: string) => s + "data: " + "[".repeat(100_000)),
);
const sseText = (base: fc.Arbitrary<string>) =>
  fc.tuple(base, fc.array(sseMutation, { maxLength: 3 })).map(([s, ms]) => ms.reduce((acc, m) => m(acc), s));

const exchangeOf = (urls: string[], request: fc.Arbitrary<unknown>, json: fc.Arbitrary<unknown>, sse: fc.Arbitrary<string>) =>
  fc
    .record(
      {
        call_id: id("call"),
        session_id: id("sess"),
        agent_name: fc.constantFrom("research-bot", "CoshNG"),
        pid: fc.integer({ min: 1, max: 4_000_000 }),
        start_ns: fc.integer({ min: 0, max: 1_000_000 }).map(ns),
        end_ns: fc.integer({ min: 1_000_000, max: 2_000_000 }).map(ns),
        url: fc.constantFrom(...urls),
        requestBody: fc.oneof(request, request.map((r) => encode(r))),
        status: fc.constantFrom(200, 200, 400, 429, 500, 529),
        body: fc.oneof(
          json.map((b) => ({ body: b as unknown })),
          json.map((b) => ({ body: encode(b) as unknown })),
          sse.map((s) => ({ sse: s as unknown })),
          sse.map((s) => ({ body: s as unknown, headers: { "content-type": "text/event-stream" } })),
          fc.constant({ body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } as unknown }),
          fc.constant({ body: "<html>502 Bad Gateway</html>" as unknown }),
          fc.constant({}),
        ),
        error: fc.constantFrom("fetch failed: ETIMEDOUT", "socket hang up"),
        cancelled: fc.boolean(),
      },
      { requiredKeys: ["call_id", "start_ns", "url", "requestBody", "status", "body"] },
    )
    .map(({ url, requestBody, status, body, ...rest }) => ({
      ...rest,
      request: { method: "POST", url, headers: { authorization: "Bearer sk-proj-fuzz", "content-type": "application/json" }, body: requestBody },
      response: { status, ...body },
    }));

export const validExchange: fc.Arbitrary<unknown> = fc.oneof(
  exchangeOf(OPENAI_URLS, openaiRequest, openaiResponse, sseText(openaiChunks)),
  exchangeOf(ANTHROPIC_URLS, anthropicRequest, anthropicResponse, sseText(anthropicEvents)),
);

// Lifecycle events (SPEC §2.3).
export const validEvent: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    { kind: fc.constant("process_exit"), pid: fc.integer({ min: 1, max: 4_000_000 }), agent_name: fc.constantFrom("CoshNG", "FuzzAgent"), host: fc.constant("fuzz-host"), session_id: id("sess"), at_ns: fc.integer({ min: 0, max: 1_000_000 }).map(ns), exit_code: fc.integer({ min: 0, max: 255 }), signal: fc.constantFrom("SIGKILL", 9, null), oom: fc.boolean() },
    { requiredKeys: ["kind", "pid", "agent_name", "at_ns"] },
  ),
  fc.record(
    { kind: fc.constant("turn_end"), session_id: id("sess"), conversation_id: id("conv"), turn_id: id("turn"), reason: fc.constantFrom("completed", "steered", "drained", "dispatched", "awaiting", "failed", "cancelled"), at_ns: fc.integer({ min: 0, max: 1_000_000 }).map(ns), final_event_id: id("ev") },
    { requiredKeys: ["kind", "session_id", "turn_id", "reason", "at_ns"] },
  ),
  fc.record(
    { kind: fc.constant("tool_result"), session_id: id("sess"), conversation_id: id("conv"), call_id: id("call"), tool_call_id: id("tc"), name: fc.constantFrom("bash", "read_file"), arguments: fc.jsonValue({ maxDepth: 2 }), success: fc.boolean(), error: fc.constantFrom("EACCES: permission denied", null), response: fc.jsonValue({ maxDepth: 2 }), duration_ns: fc.integer({ min: 0, max: 10_000_000 }), at_ns: fc.integer({ min: 0, max: 1_000_000 }).map(ns) },
    { requiredKeys: ["kind", "session_id", "tool_call_id", "name", "success", "at_ns"] },
  ),
);

// ---------------------------------------------------------------------------------------------
// Batches and request bodies

/** Items of a route: valid, mutated, or any JSON at all. */
export const itemOf = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: mutated(valid), weight: 5 }, { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 });

/** One item, an array of items (possibly empty), or a batch that repeats an item (duplicate call_ids). */
export const batchOf = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: itemOf(valid), weight: 3 },
    { arbitrary: fc.array(itemOf(valid), { maxLength: 5 }), weight: 4 },
    { arbitrary: fc.array(valid, { minLength: 1, maxLength: 3 }).map((items) => [...items, items[0]]), weight: 1 },
    { arbitrary: fc.tuple(fc.array(valid, { minLength: 1, maxLength: 3 }), itemOf(valid)).map(([items, other]) => [...items, items[0], other]), weight: 1 },
    { arbitrary: fc.jsonValue(), weight: 1 },
  );

export type RequestBody = { bytes: Uint8Array | null; contentType: string | null; label: string };

const textMutation = fc.oneof(
  { arbitrary: fc.constant({ label: "as is", apply: (t: string) => t as string | Uint8Array }), weight: 12 },
  { arbitrary: fc.nat().map((n) => ({ label: `cut at ${n}`, apply: (t: string) => t.slice(0, n % (t.length + 1)) })), weight: 2 },
  { arbitrary: weirdString.map((g) => ({ label: "trailing garbage", apply: (t: string) => t + g })), weight: 1 },
  { arbitrary: fc.constant({ label: "BOM", apply: (t: string) => "\ufeff" + t }), weight: 1 },
  { arbitrary: fc.constantFrom("", " ", "\n\t ", "null", "0", '""', "[]", "{}", "[[]]", "[null]").map((s) => ({ label: `body ${JSON.stringify(s)}`, apply: () => s })), weight: 2 },
  {
    arbitrary: fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([n, bad]) => ({
      label: "invalid UTF-8",
      apply: (t: string) => {
        const b = Buffer.from(t);
        const at = n % (b.length + 1);
        return Buffer.concat([b.subarray(0, at), Buffer.from([0xff, 0xc3, ...bad]), b.subarray(at)]);
      },
    })),
    weight: 1,
  },
);

const contentType = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 8 },
  { arbitrary: fc.constantFrom(null, "text/plain", "application/json; charset=latin1", "application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz", "application/octet-stream", "text/event-stream", "application/json; charset=utf-8"), weight: 2 },
);

/** A request body for `valid`'s route: a batch encoded, maybe mangled, with a content type. */
export const requestBodyOf = (valid: fc.Arbitrary<unknown>) =>
  fc.tuple(batchOf(valid), textMutation, contentType).map(([payload, m, type]) => ({ payload, mutate: m, contentType: type }));
