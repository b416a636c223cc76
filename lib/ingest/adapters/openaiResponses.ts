// OpenAI's Responses API (`POST /v1/responses`: Codex, the OpenAI Agents SDK): `instructions`
// and `input` items in, `output` items out, JSON or a stream of typed events ending with
// `response.completed`, `response.incomplete` or `response.failed`. Items become the parts of
// SPEC §2.1: messages' text, reasoning summaries, and the client's tool calls
// (function_call, custom_tool_call, local_shell_call, computer_call, shell_call, apply_patch_call,
// mcp_approval_request) with their `call_id` and outputs. Tools
// the provider runs itself (web search, file search, code interpreter) are answered inside the
// provider and are left out, so they never read as calls awaiting an answer.

import type { ChatMessage, Part } from "../../domain/calls";
import type { Adapter, RequestFields, ResponseFields, Usage } from "./index";
import { errorText } from "./openai";
import { asCount, asNumber, asString, isRecord, parseArguments, parseJson, records, type JsonObject, type SseEvent } from "./sse";

const SYSTEM_ROLES = new Set(["system", "developer"]);
const TERMINAL_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** Text of a message's content: a string, or input_text / output_text / refusal parts. */
function textParts(content: unknown): Part[] {
  if (typeof content === "string") return content ? [{ type: "text", content }] : [];
  return records(content).flatMap((p): Part[] => {
    const text = asString(p.text) ?? asString(p.refusal);
    return text ? [{ type: "text", content: text }] : [];
  });
}

/** The id a tool call's output names it by (`call_id`; the item's own `id` when there is none). */
const callIdOf = (item: JsonObject): string => asString(item.call_id) ?? asString(item.id) ?? "";

/**
 * The tools the client runs whose items name no tool (the local shell; computer use, the shell
 * and apply_patch tools): the name each is stored under, and the field holding its arguments.
 * Each is answered by an item of the next request, of the same type with `_output` after it.
 */
const NAMELESS_TOOL_ITEMS = new Map([
  ["local_shell_call", { name: "local_shell", argumentsIn: "action" }],
  ["computer_call", { name: "computer", argumentsIn: "action" }],
  ["shell_call", { name: "shell", argumentsIn: "action" }],
  ["apply_patch_call", { name: "apply_patch", argumentsIn: "operation" }],
]);

/** An output item (or an input item the model produced earlier) as parts; null for items of other kinds. */
function itemParts(item: JsonObject): Part[] | null {
  const type = asString(item.type);
  const nameless = type === undefined ? undefined : NAMELESS_TOOL_ITEMS.get(type);
  if (nameless) return [{ type: "tool_call", id: callIdOf(item), name: nameless.name, arguments: item[nameless.argumentsIn] ?? null }];
  switch (type) {
    case "reasoning": {
      const summary = records(item.summary).flatMap((s) => (asString(s.text) ? [asString(s.text)!] : [])).join("\n");
      return summary ? [{ type: "reasoning", content: summary }] : [];
    }
    case "function_call":
      return [{ type: "tool_call", id: callIdOf(item), name: asString(item.name) ?? "", arguments: parseArguments(item.arguments) }];
    case "custom_tool_call":
      return [{ type: "tool_call", id: callIdOf(item), name: asString(item.name) ?? "", arguments: item.input ?? null }];
    // an MCP call waiting for the client's approval, which the next request gives or refuses
    case "mcp_approval_request":
      return [{ type: "tool_call", id: callIdOf(item), name: asString(item.name) ?? "mcp_approval", arguments: parseArguments(item.arguments) }];
    case "message":
    case undefined:
      return asString(item.role) === "assistant" || item.type === "message" ? textParts(item.content) : null;
    default:
      return null; // web_search_call and the other tools the provider runs: answered where they ran
  }
}

const OUTPUT_ITEMS = new Set([...["function_call", "custom_tool_call", ...NAMELESS_TOOL_ITEMS.keys()].map((t) => `${t}_output`), "mcp_approval_response"]);

/** The call an output item answers (an approval names its request by `approval_request_id`). */
const answeredIdOf = (item: JsonObject): string => asString(item.call_id) ?? asString(item.approval_request_id) ?? "";

/** What an output item says: its output, or for an approval whether it was given. */
const outputOf = (item: JsonObject): unknown => (item.type === "mcp_approval_response" ? { approve: item.approve ?? null, reason: item.reason ?? null } : outputText(item.output));

function request(body: unknown): RequestFields {
  const b = isRecord(body) ? body : {};
  const system: Part[] = textParts(b.instructions);
  const input: ChatMessage[] = [];
  // what the model produced (its messages, reasoning, tool calls) in a row is one assistant turn:
  // parallel calls sent as separate items must not read as one turn each
  let assistant: ChatMessage | null = null;
  const items = typeof b.input === "string" ? [{ role: "user", content: b.input }] : records(b.input);
  for (const item of items) {
    const type = asString(item.type);
    const role = asString(item.role);
    if (type && OUTPUT_ITEMS.has(type)) {
      assistant = null;
      input.push({ role: "tool", parts: [{ type: "tool_call_response", id: answeredIdOf(item), response: outputOf(item) }] });
    } else if (role && role !== "assistant") {
      assistant = null;
      if (SYSTEM_ROLES.has(role)) system.push(...textParts(item.content));
      else input.push({ role, parts: textParts(item.content) });
    } else {
      const parts = itemParts(item);
      if (!parts?.length) continue;
      if (!assistant) input.push((assistant = { role: "assistant", parts: [] }));
      assistant.parts.push(...parts);
    }
  }
  return {
    model: asString(b.model) ?? null,
    max_tokens: asCount(b.max_output_tokens) ?? null,
    system_instructions: system,
    input_messages: continuesStoredState(b) ? withEarlierCalls(input) : input,
    tools: b.tools,
  };
}

/** A request that goes on from state the provider keeps (a previous response, a conversation object): its input holds only what is new. */
const continuesStoredState = (b: JsonObject): boolean => typeof b.previous_response_id === "string" || b.conversation != null;

/**
 * The history of a request that goes on from stored state, with the tool calls its outputs
 * answer put back before them: those calls were in the earlier response, which the request
 * names instead of repeating (the API accepts that), so its outputs are no answers to nothing.
 * Their names and arguments are not in the request: they stand with an empty name.
 */
function withEarlierCalls(input: ChatMessage[]): ChatMessage[] {
  const called = new Set(input.flatMap((m) => m.parts.flatMap((p) => (p.type === "tool_call" ? [p.id] : []))));
  const out: ChatMessage[] = [];
  let earlier: ChatMessage | null = null; // before the run of tool messages it answers
  for (const m of input) {
    if (m.role !== "tool") earlier = null;
    for (const p of m.parts) {
      if (p.type !== "tool_call_response" || called.has(p.id)) continue;
      called.add(p.id);
      if (!earlier) out.push((earlier = { role: "assistant", parts: [] }));
      earlier.parts.push({ type: "tool_call", id: p.id, name: "", arguments: undefined }); // not known here: the earlier response's own say stays
    }
    out.push(m);
  }
  return out;
}

function outputText(output: unknown): unknown {
  if (typeof output === "string" || !Array.isArray(output)) return output ?? "";
  const texts = textParts(output);
  return texts.length ? texts.map((p) => (p.type === "text" ? p.content : "")).join("\n") : output;
}

function usage(u: unknown): Usage {
  if (!isRecord(u)) return {};
  const details = isRecord(u.input_tokens_details) ? u.input_tokens_details : {};
  return { input_tokens: asCount(u.input_tokens), output_tokens: asCount(u.output_tokens), cache_read_tokens: asCount(details.cached_tokens) };
}

/** The Chat Completions finish reason a response's status stands for (the Responses API has none). */
function finishReason(r: JsonObject, parts: Part[]): string | undefined {
  const status = asString(r.status);
  if (status === "completed") return parts.some((p) => p.type === "tool_call") ? "tool_calls" : "stop";
  if (status === "incomplete") {
    const reason = isRecord(r.incomplete_details) ? asString(r.incomplete_details.reason) : undefined;
    return reason === "max_output_tokens" ? "length" : reason; // "length" as the token rules know it
  }
  return undefined;
}

function fields(r: JsonObject, items: JsonObject[]): ResponseFields {
  const parts = items.flatMap((i) => itemParts(i) ?? []);
  const finish = finishReason(r, parts);
  const failed = asString(r.status) === "failed" || isRecord(r.error);
  return {
    trace_id: asString(r.id) ?? null,
    model: asString(r.model) ?? null,
    usage: usage(r.usage),
    finish_reasons: finish ? [finish] : [],
    output_messages: [{ role: "assistant", parts, ...(finish ? { finish_reason: finish } : {}) }],
    ...(failed ? { error: errorText({ error: r.error }) ?? "response failed" } : {}),
  };
}

function response(body: unknown): ResponseFields | null {
  if (!isRecord(body) || !Array.isArray(body.output)) return null;
  return fields(body, records(body.output));
}

/**
 * The stream: the terminal event carries the whole response. A stream cut before it keeps what
 * arrived: finished items (`response.output_item.done`), and the text and arguments of the
 * ones still open.
 */
function stream(events: SseEvent[]): ResponseFields {
  const items = new Map<number, JsonObject>();
  // each open item's output_text part, found once: a delta must not search the item's content
  // (an item can arrive with thousands of parts, and be followed by a delta per token)
  const openTexts = new Map<number, JsonObject>();
  let last: JsonObject = {};
  let error: string | null = null;
  for (const ev of events) {
    const data = parseJson(ev.data);
    if (!isRecord(data)) continue;
    const type = asString(data.type) ?? ev.event ?? "";
    if (isRecord(data.response)) last = data.response;
    if (TERMINAL_EVENTS.has(type) && isRecord(data.response)) {
      const out = fields(data.response, records(data.response.output).length ? records(data.response.output) : [...items.values()]);
      return { ...out, sse_done: true };
    }
    if (type === "error") error ??= errorText({ error: { message: data.message, code: data.code } }) ?? "stream error";
    const index = asNumber(data.output_index) ?? 0;
    if ((type === "response.output_item.added" || type === "response.output_item.done") && isRecord(data.item)) {
      items.set(index, { ...data.item });
      openTexts.delete(index);
    } else if (type === "response.output_text.delta" || type === "response.function_call_arguments.delta") growOpenItem(items, openTexts, index, type, asString(data.delta) ?? "");
  }
  const out = fields({ ...last, status: "in_progress" }, [...items.entries()].sort(([a], [b]) => a - b).map(([, i]) => i));
  return { ...out, sse_done: false, ...(error ? { error } : {}) };
}

/** A delta of an item still streaming: its text (kept as one output_text part) or its arguments. */
function growOpenItem(items: Map<number, JsonObject>, openTexts: Map<number, JsonObject>, index: number, type: string, delta: string): void {
  const item = items.get(index) ?? { type: type === "response.output_text.delta" ? "message" : "function_call" };
  items.set(index, item);
  if (type !== "response.output_text.delta") {
    item.arguments = `${asString(item.arguments) ?? ""}${delta}`;
    return;
  }
  let text = openTexts.get(index);
  if (!text) {
    const content = records(item.content);
    text = content.find((c) => c.type === "output_text");
    if (!text) item.content = [...content, (text = { type: "output_text", text: "" })];
    openTexts.set(index, text);
  }
  text.text = `${asString(text.text) ?? ""}${delta}`;
}

export const openaiResponses: Adapter = { kind: "openai", request, response, stream, errorText };
