// OpenAI Chat Completions, also spoken by OpenAI-compatible gateways (Qwen/DashScope,
// DeepSeek, vLLM, Azure), which add `reasoning_content` and their own error shapes.

import type { ChatMessage, Part, ToolCallPart } from "../../domain/calls";
import type { Adapter, RequestFields, ResponseFields, Usage } from "./index";
import { asCount, asNumber, asString, isRecord, parseArguments, parseJson, records, type JsonObject, type SseEvent } from "./sse";

const SYSTEM_ROLES = new Set(["system", "developer"]);

function request(body: unknown): RequestFields {
  const b = isRecord(body) ? body : {};
  const system: Part[] = [];
  const input: ChatMessage[] = [];
  for (const m of records(b.messages)) {
    const role = asString(m.role) ?? "user";
    if (SYSTEM_ROLES.has(role)) system.push(...contentParts(m.content));
    else if (role === "tool") input.push(toolMessage(m));
    else if (role === "function") input.push(functionResultMessage(m));
    else input.push({ role, parts: messageParts(m) });
  }
  // the legacy completions API (`/v1/completions`) takes a prompt instead of messages
  if (!input.length && typeof b.prompt === "string" && b.prompt) input.push({ role: "user", parts: [{ type: "text", content: b.prompt }] });
  return {
    model: asString(b.model) ?? null,
    // max_tokens is deprecated in favour of max_completion_tokens; either may be sent.
    max_tokens: asCount(b.max_completion_tokens) ?? asCount(b.max_tokens) ?? null,
    system_instructions: system,
    input_messages: input,
    tools: b.tools ?? b.functions,
  };
}

function toolMessage(m: JsonObject): ChatMessage {
  const id = asString(m.tool_call_id) ?? "";
  return { role: "tool", parts: [{ type: "tool_call_response", id, response: contentText(m.content) }] };
}

/**
 * The result of a legacy function call (`role: "function"`, before tool calls had ids): paired
 * with its call by name and order (withToolCallIds).
 */
function functionResultMessage(m: JsonObject): ChatMessage {
  const part = { type: "tool_call_response" as const, id: "", name: asString(m.name) ?? "", response: contentText(m.content) };
  return { role: "tool", parts: [part] };
}

/** Parts of an assistant/user message, in the order a model produces them: reasoning, text, tool calls. */
function messageParts(m: JsonObject): Part[] {
  const parts: Part[] = [];
  // DeepSeek and Qwen send `reasoning_content`; vLLM and some routers send `reasoning`.
  const reasoning = asString(m.reasoning_content) ?? asString(m.reasoning);
  if (reasoning) parts.push({ type: "reasoning", content: reasoning });
  parts.push(...contentParts(m.content));
  const refusal = asString(m.refusal);
  if (refusal) parts.push({ type: "text", content: refusal });
  for (const tc of records(m.tool_calls)) parts.push(toolCallPart(tc));
  if (isRecord(m.function_call)) parts.push(toolCallPart({ function: m.function_call })); // legacy: one call, no id
  return parts;
}

function toolCallPart(tc: JsonObject): ToolCallPart {
  const fn = isRecord(tc.function) ? tc.function : {};
  return {
    type: "tool_call",
    id: asString(tc.id) ?? "",
    name: asString(fn.name) ?? "",
    arguments: parseArguments(fn.arguments),
  };
}

/** `content` is a string or an array of parts; only text-like parts are kept (images, audio are not messages' text). */
function contentParts(content: unknown): Part[] {
  if (typeof content === "string") return content ? [{ type: "text", content }] : [];
  const parts: Part[] = [];
  for (const p of records(content)) {
    const text = asString(p.text) ?? asString(p.refusal);
    if (text) parts.push({ type: "text", content: text });
  }
  return parts;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return contentParts(content)
    .map((p) => (p.type === "text" ? p.content : ""))
    .join("\n");
}

function usage(u: unknown): Usage {
  if (!isRecord(u)) return {};
  const details = isRecord(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  return {
    input_tokens: asCount(u.prompt_tokens),
    output_tokens: asCount(u.completion_tokens),
    // DeepSeek reports cache hits as prompt_cache_hit_tokens.
    cache_read_tokens: asCount(details.cached_tokens) ?? asCount(u.prompt_cache_hit_tokens),
  };
}

const byIndex = (a: JsonObject, b: JsonObject) => (asNumber(a.index) ?? 0) - (asNumber(b.index) ?? 0);

function response(body: unknown): ResponseFields | null {
  if (!isRecord(body) || !Array.isArray(body.choices)) return null;
  const choices = records(body.choices).sort(byIndex);
  const output: ChatMessage[] = choices.map((c) => {
    // the legacy completions API answers `text` instead of a message
    const m = isRecord(c.message) ? c.message : typeof c.text === "string" ? { content: c.text } : {};
    const finish = asString(c.finish_reason);
    return { role: asString(m.role) ?? "assistant", parts: messageParts(m), ...(finish ? { finish_reason: finish } : {}) };
  });
  return {
    trace_id: asString(body.id) ?? null,
    model: asString(body.model) ?? null,
    usage: usage(body.usage),
    finish_reasons: output.flatMap((m) => (m.finish_reason ? [m.finish_reason] : [])),
    output_messages: output,
  };
}

type StreamedTool = { id: string; name: string; args: string };
type StreamedChoice = { role?: string; reasoning: string; text: string; tools: Map<number, StreamedTool>; finish?: string };

function stream(events: SseEvent[]): ResponseFields {
  const choices = new Map<number, StreamedChoice>();
  const out: ResponseFields = { trace_id: null, model: null, usage: {}, finish_reasons: [], output_messages: [], sse_done: false };
  for (const ev of events) {
    if (ev.data.trim() === "[DONE]") {
      out.sse_done = true;
      continue;
    }
    const chunk = parseJson(ev.data);
    if (!isRecord(chunk)) continue; // a cut final line is not JSON
    if (chunk.error !== undefined) out.error ??= errorText(chunk);
    out.trace_id ??= asString(chunk.id) ?? null;
    out.model ??= asString(chunk.model) ?? null;
    if (isRecord(chunk.usage)) out.usage = usage(chunk.usage);
    for (const c of records(chunk.choices)) applyChoiceDelta(choices, c);
  }
  out.output_messages = [...choices.entries()].sort(([a], [b]) => a - b).map(([, c]) => streamedMessage(c));
  out.finish_reasons = out.output_messages.flatMap((m) => (m.finish_reason ? [m.finish_reason] : []));
  // every choice finished: the stream ended, [DONE] or not (some compatible servers never send it)
  if (out.output_messages.length && out.finish_reasons.length === out.output_messages.length) out.sse_done = true;
  return out;
}

function applyChoiceDelta(choices: Map<number, StreamedChoice>, c: JsonObject): void {
  const index = asNumber(c.index) ?? 0;
  let acc = choices.get(index);
  if (!acc) choices.set(index, (acc = { reasoning: "", text: "", tools: new Map() }));
  const delta = isRecord(c.delta) ? c.delta : {};
  acc.role ??= asString(delta.role);
  acc.reasoning += asString(delta.reasoning_content) ?? asString(delta.reasoning) ?? "";
  acc.text += asString(delta.content) ?? asString(c.text) ?? "";
  records(delta.tool_calls).forEach((tc, i) => applyToolDelta(acc, tc, i));
  if (isRecord(delta.function_call)) applyToolDelta(acc, { function: delta.function_call }, 0); // legacy: one call, no id
  acc.finish = asString(c.finish_reason) ?? acc.finish;
}

/** Tool calls stream by index: id and name come once, arguments arrive as string fragments. */
function applyToolDelta(acc: StreamedChoice, tc: JsonObject, position: number): void {
  const index = asNumber(tc.index) ?? position;
  let tool = acc.tools.get(index);
  if (!tool) acc.tools.set(index, (tool = { id: "", name: "", args: "" }));
  const fn = isRecord(tc.function) ? tc.function : {};
  tool.id ||= asString(tc.id) ?? "";
  // Some gateways repeat the name in every chunk; never concatenate it.
  tool.name ||= asString(fn.name) ?? "";
  tool.args += asString(fn.arguments) ?? "";
}

function streamedMessage(c: StreamedChoice): ChatMessage {
  const parts: Part[] = [];
  if (c.reasoning) parts.push({ type: "reasoning", content: c.reasoning });
  if (c.text) parts.push({ type: "text", content: c.text });
  for (const [, t] of [...c.tools.entries()].sort(([a], [b]) => a - b)) {
    parts.push({ type: "tool_call", id: t.id, name: t.name, arguments: parseArguments(t.args) });
  }
  return { role: c.role ?? "assistant", parts, ...(c.finish ? { finish_reason: c.finish } : {}) };
}

/**
 * Readable text of an error body: `{"error":{"message","type","code"}}` (OpenAI, Azure,
 * DashScope, DeepSeek), `{"error":"…"}`, or vLLM's flat `{"object":"error","message",…}`.
 */
export function errorText(body: unknown): string | null {
  if (!isRecord(body)) return null;
  if (typeof body.error === "string") return body.error;
  const e = isRecord(body.error) ? body.error : body.object === "error" ? body : null;
  if (!e) return asString(body.detail) ?? null; // FastAPI-style proxies
  const message = asString(e.message) ?? "";
  const code = typeof e.code === "string" || typeof e.code === "number" ? String(e.code) : undefined;
  const type = asString(e.type);
  const label = code && type && code !== type ? `${code} (${type})` : (code ?? type);
  if (label && message) return `${label}: ${message}`;
  return label || message || null;
}

export const openai: Adapter = { kind: "openai", request, response, stream, errorText };
