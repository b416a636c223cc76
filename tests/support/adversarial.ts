// Inputs built to make a reader of untrusted text do more than linear work: runs that
// backtracking regexes rescan from every position, escapes a string scanner must count, line
// ends a multi-line pattern may cross, nesting a recursive walker follows. Used by the
// linear-time test (hot paths, 1 MiB vs 4 MiB) and by `npm run bench:adversarial` (whole
// ingest requests over HTTP, 1 MiB vs 8 MiB).
import { parseJsonExact } from "@/lib/wire/json";
import { parseJsonBytes } from "@/lib/api/body";
import { jsonArrayPieces } from "@/lib/json";
import { forgetHistories, parseCallBatch } from "@/lib/api/callBatch";
import { judgeToolResult } from "@/lib/detect/toolResult";
import { fingerprintArgs } from "@/lib/detect/text";
import { normalizeExchange } from "@/lib/ingest/adapters";
import { parseSse } from "@/lib/ingest/adapters/sse";
import { redactText, storedArguments } from "@/lib/ingest/redact";
import { isIdleToolCall } from "@/lib/detect/deadLoop";
import { prepareCall } from "@/lib/ingest/prepare";
import { recordToolCalls } from "@/lib/ingest/toolCalls";
import { callSchema } from "@/lib/ingest/schema";
import { withToolCallIds } from "@/lib/ingest/toolCallIds";
import type { ChatMessage } from "@/lib/domain/calls";
import type { HttpExchange } from "@/lib/domain/calls";

/** `unit` repeated to about `bytes` characters. */
export const fill = (unit: string, bytes: number): string => unit.repeat(Math.max(1, Math.floor(bytes / unit.length)));

/** Untrusted texts that once took (or could take) quadratic time somewhere. */
export const HOSTILE_TEXTS: Record<string, (bytes: number) => string> = {
  "escaped quotes": (n) => fill('\\"', n),
  "backslash runs": (n) => fill("\\\\\\\\\\\\\\\\x", n),
  "TOKEN run": (n) => fill("TOKEN", n),
  "api_key run": (n) => fill("api_key", n),
  "hyphenated name": (n) => fill("a-", n),
  "name then spaces": (n) => `password${fill(" ", n)}x`,
  "assignments without values": (n) => fill("api_key=", n),
  // each `:` read back over up to 64 blanks, plain and escaped (the first look for a credential name)
  "colons after blanks": (n) => fill(`token${" \\t".repeat(40)}:`, n),
  "URL schemes": (n) => fill("http://", n),
  "Bearer run": (n) => fill("Bearer ", n),
  "sk- run": (n) => fill("sk-", n),
  newlines: (n) => fill("\n", n),
  "error lines": (n) => fill("error\n", n),
  "exit code lines": (n) => fill("exit code\n", n),
  "brackets and spaces": (n) => fill("( ", n),
  "carriage returns": (n) => fill("\r", n),
  "open brackets": (n) => fill("[", n),
  "slashes": (n) => fill("/", n),
  "closing brackets": (n) => `${fill(")", n)}x`,
};

export type HotPath = { name: string; run: (text: string) => unknown };

/** Every function that reads untrusted text on the ingest path, fed the text as a caller would. */
export const HOT_PATHS: HotPath[] = [
  { name: "JSON body (parseJsonExact)", run: (t) => parseJsonExact(JSON.stringify({ a_ns: "1", text: t, n_ns: 1767268800000000000 })) },
  { name: "JSON batch in pieces (parseJsonBytes)", run: (t) => parseJsonBytes(Buffer.from(JSON.stringify([{ text: t }, 1]))) },
  { name: "JSON batch, raw (jsonArrayPieces)", run: (t) => jsonArrayPieces(Buffer.from(`[${t}, ${t}]`)) },
  {
    name: "call batch reusing a history (parseCallBatch)",
    run: (t) => {
      const said = { role: "user", parts: [{ type: "text", content: t }] };
      const call = (k: number) => ({ call_id: `h${k}`, conversation_id: "h", start_ns: 1, input_messages: Array(k).fill(said) });
      forgetHistories(); // every run the same work: the second call reuses the first's message
      return parseCallBatch(Buffer.from(JSON.stringify([call(1), call(2)])));
    },
  },
  { name: "secret masking (redactText)", run: (t) => redactText(t) },
  { name: "tool arguments (storedArguments)", run: (t) => storedArguments(t) },
  { name: "tool result (judgeToolResult)", run: (t) => judgeToolResult({ response: t }) },
  { name: "tool fingerprint (fingerprintArgs)", run: (t) => fingerprintArgs(t) },
  { name: "event stream (parseSse)", run: (t) => parseSse(`data: ${t}\n\n`) },
  { name: "idle command check (isIdleToolCall)", run: (t) => isIdleToolCall("bash", { command: t }) },
  {
    name: "raw exchange (normalizeExchange)",
    run: (t) => normalizeExchange(exchange(t)),
  },
];

/**
 * Ingest steps fed inputs of many small parts, where a per-part scan of the whole would be
 * quadratic: `prepare(bytes)` builds the input once and returns the work to time.
 */
export type ShapedPath = { name: string; prepare: (bytes: number) => () => unknown };

/** A call whose history holds about `bytes / 48` tool results, none answering a call it holds. */
function orphanResults(bytes: number) {
  const parts = Array.from({ length: Math.floor(bytes / 48) }, (_, i) => ({ type: "tool_call_response", id: `r${i}`, response: "ok" }));
  return callSchema.parse({ call_id: "orphans", session_id: "adv", start_ns: "1767268800000000000", input_messages: [{ role: "tool", parts }] });
}

/** About `bytes / 96` id-less tool calls named "a", then as many id-less responses named "b" (OTLP, Gemini-style). */
function idlessToolParts(bytes: number): () => ChatMessage[] {
  const n = Math.floor(bytes / 96);
  return () => [
    { role: "assistant", parts: Array.from({ length: n }, () => ({ type: "tool_call" as const, id: "", name: "a", arguments: {} })) },
    { role: "tool", parts: Array.from({ length: n }, () => ({ type: "tool_call_response" as const, id: "", name: "b", response: "ok" })) },
  ] as ChatMessage[];
}

/**
 * A Responses API stream: an item announced with `bytes / 24` content parts, then as many text
 * deltas (each one looked for the item's text part among all its parts).
 */
function responsesStream(bytes: number): HttpExchange {
  const n = Math.floor(bytes / 24);
  const events = [`data: ${JSON.stringify({ type: "response.output_item.added", output_index: 0, item: { type: "message", content: Array.from({ length: n }, () => ({})) } })}\n\n`];
  for (let i = 0; i < n; i++) events.push(`data: {"type":"response.output_text.delta","output_index":0,"delta":"a"}\n\n`);
  return {
    call_id: "responses-stream",
    start_ns: 1767268800000000000n,
    request: { method: "POST", url: "https://api.openai.com/v1/responses", body: JSON.stringify({ model: "m", input: "hi", stream: true }) },
    response: { status: 200, headers: { "content-type": "text/event-stream" }, sse: events.join("") },
  } as HttpExchange;
}

export const SHAPED_PATHS: ShapedPath[] = [
  {
    name: "a Responses stream of many deltas to an item of many parts (normalizeExchange)",
    prepare: (bytes) => {
      const x = responsesStream(bytes);
      return () => normalizeExchange(x);
    },
  },
  // each response looked for its call among all the open ones
  {
    name: "id-less tool calls and responses (withToolCallIds)",
    prepare: (bytes) => {
      const history = idlessToolParts(bytes);
      return () => withToolCallIds(history(), [], "scope"); // it gives the parts their ids: a fresh history each run
    },
  },
  // each result's tool name was looked for in every part of the history
  {
    name: "tool results without their calls (prepareCall, recordToolCalls)",
    prepare: (bytes) => {
      const call = orphanResults(bytes);
      return () => recordToolCalls(new Map(), prepareCall(call));
    },
  },
];

function exchange(text: string): HttpExchange {
  return {
    call_id: "x",
    start_ns: 1767268800000000000n,
    request: { method: "POST", url: `https://api.openai.com/${text.slice(0, 4096)}/v1/chat/completions`, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }) },
    response: { status: 500, body: text },
  } as HttpExchange;
}

/** Ingest request bodies (route and JSON text) carrying a hostile text where a real agent's data goes. */
export type HostileRequest = {
  name: string;
  route: "/api/ingest/calls" | "/api/ingest/http" | "/api/ingest/events";
  /** a body of about `bytes` before JSON escaping; `id` makes its call or event new */
  body: (bytes: number, id: string) => string;
};

const call = (id: string, text: string) => ({
  call_id: id,
  agent_name: "hostile",
  pid: 4242,
  start_ns: 1767268800000000000,
  end_ns: 1767268801000000000,
  status_code: 200,
  input_messages: [
    { role: "user", parts: [{ type: "text", content: text }] },
    { role: "assistant", parts: [{ type: "tool_call", id: "t1", name: "bash", arguments: text }] },
    { role: "tool", parts: [{ type: "tool_call_response", id: "t1", response: text }] },
  ],
  output_messages: [{ role: "assistant", parts: [{ type: "text", content: "done" }] }],
});

export const HOSTILE_REQUESTS: HostileRequest[] = [
  ...Object.entries(HOSTILE_TEXTS).map(([name, text]): HostileRequest => ({
    name,
    route: "/api/ingest/calls",
    // the text appears three times (message, arguments, result): a third of the size each
    body: (bytes, id) => JSON.stringify(call(id, text(Math.floor(bytes / 3)))),
  })),
  {
    name: "raw exchange, error body",
    route: "/api/ingest/http",
    body: (bytes, id) => JSON.stringify({ ...exchange(HOSTILE_TEXTS["escaped quotes"](Math.floor(bytes / 2))), call_id: id, start_ns: 1767268800000000000 }),
  },
  {
    name: "tool_result event",
    route: "/api/ingest/events",
    body: (bytes, id) =>
      JSON.stringify({ kind: "tool_result", session_id: "adv", tool_call_id: id, name: "bash", success: true, response: HOSTILE_TEXTS["exit code lines"](bytes), at_ns: 1767268800000000000 }),
  },
  { name: "nesting", route: "/api/ingest/calls", body: (bytes) => `${fill("[", bytes / 2)}${fill("]", bytes / 2)}` },
  { name: "empty objects", route: "/api/ingest/calls", body: (bytes) => `[${fill("{},", bytes)}{}]` },
];

/** The request's body at about `bytes` bytes on the wire (JSON escaping can double a text). */
export function bodyOfSize(request: HostileRequest, bytes: number, id: string): string {
  const first = request.body(bytes, id);
  return first.length <= bytes * 1.02 ? first : request.body(Math.floor((bytes * bytes) / first.length), id);
}
