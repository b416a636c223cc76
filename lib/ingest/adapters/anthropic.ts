// Anthropic Messages API: content blocks in requests and responses, and the
// message_start … message_stop event stream.

import type { ChatMessage, Part, ToolCallResponsePart } from "../../domain/calls";
import type { Adapter, RequestFields, ResponseFields, Usage } from "./index";
import { asCount, asNumber, asString, isRecord, parseArguments, parseJson, records, type JsonObject, type SseEvent } from "./sse";

function request(body: unknown): RequestFields {
  const b = isRecord(body) ? body : {};
  return {
    model: asString(b.model) ?? null,
    max_tokens: asCount(b.max_tokens) ?? null,
    system_instructions: blocksParts(b.system),
    input_messages: records(b.messages).flatMap(inputMessages),
    tools: b.tools,
  };
}

/**
 * Tool results travel inside a user message; normalized, they are a message of role "tool"
 * placed before the rest of that user message (the API requires them to come first).
 */
function inputMessages(m: JsonObject): ChatMessage[] {
  const role = asString(m.role) ?? "user";
  const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : records(m.content);
  const results = blocks.filter((b) => b.type === "tool_result").map(toolResultPart);
  const rest = blocksParts(blocks.filter((b) => b.type !== "tool_result"), true);
  const out: ChatMessage[] = [];
  if (results.length > 0) out.push({ role: "tool", parts: results });
  if (rest.length > 0 || results.length === 0) out.push({ role, parts: rest });
  return out;
}

function toolResultPart(b: JsonObject): ToolCallResponsePart {
  const part: ToolCallResponsePart = {
    type: "tool_call_response",
    id: asString(b.tool_use_id) ?? "",
    response: resultContent(b.content),
  };
  if (b.is_error === true) part.is_error = true;
  return part;
}

/** A tool result's content is a string or blocks; text blocks are joined, other blocks (images) kept as given. */
function resultContent(content: unknown): unknown {
  if (content === undefined || content === null) return "";
  if (!Array.isArray(content)) return content;
  const texts = records(content).flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : []));
  return texts.length > 0 ? texts.join("\n") : content;
}

/** Tool calls Anthropic runs itself (web search, code execution, an MCP server's tools). */
const SERVER_TOOL_USES = new Set(["server_tool_use", "mcp_tool_use"]);

/**
 * `system` or message content: a string or text/thinking/tool blocks. In the request's history
 * (`history`) a server tool call whose result is not beside it is left out: Anthropic runs it,
 * and a turn paused mid-search (`pause_turn`) or cut for a client tool sends it back without
 * one, which the API accepts — it is no tool call awaiting an answer from the agent. (In an
 * answer it stays: it is what a paused turn said.)
 */
function blocksParts(content: unknown, history = false): Part[] {
  if (typeof content === "string") return content ? [{ type: "text", content }] : [];
  const blocks = records(content);
  if (!history) return blocks.flatMap(blockPart);
  const answered = new Set(blocks.flatMap((b) => (String(b.type ?? "").endsWith("tool_result") ? [asString(b.tool_use_id)] : [])));
  return blocks.flatMap((b) => (SERVER_TOOL_USES.has(String(b.type)) && !answered.has(asString(b.id)) ? [] : blockPart(b)));
}

function blockPart(b: JsonObject): Part[] {
  const type = asString(b.type) ?? "";
  if (type === "text") return b.text ? [{ type: "text", content: String(b.text) }] : [];
  if (type === "thinking") return b.thinking ? [{ type: "reasoning", content: String(b.thinking) }] : [];
  // tool_use, plus server_tool_use / mcp_tool_use, which share the {id, name, input} shape.
  if (type.endsWith("tool_use")) {
    return [{ type: "tool_call", id: asString(b.id) ?? "", name: asString(b.name) ?? "", arguments: b.input ?? {} }];
  }
  // Server tool results (web_search_tool_result, …) sit in the assistant turn next to their call.
  if (type.endsWith("tool_result")) return [toolResultPart(b)];
  return []; // images, documents, redacted_thinking: no text to keep
}

function usage(u: unknown, prev: Usage = {}): Usage {
  if (!isRecord(u)) return prev;
  return {
    input_tokens: asCount(u.input_tokens) ?? prev.input_tokens,
    output_tokens: asCount(u.output_tokens) ?? prev.output_tokens,
    cache_read_tokens: asCount(u.cache_read_input_tokens) ?? prev.cache_read_tokens,
    cache_creation_tokens: asCount(u.cache_creation_input_tokens) ?? prev.cache_creation_tokens,
  };
}

function outputMessage(role: unknown, parts: Part[], stopReason: string | undefined): ChatMessage {
  return { role: asString(role) ?? "assistant", parts, ...(stopReason ? { finish_reason: stopReason } : {}) };
}

function response(body: unknown): ResponseFields | null {
  if (!isRecord(body) || !Array.isArray(body.content)) return null;
  const stop = asString(body.stop_reason);
  return {
    trace_id: asString(body.id) ?? null,
    model: asString(body.model) ?? null,
    usage: usage(body.usage),
    finish_reasons: stop ? [stop] : [],
    output_messages: [outputMessage(body.role, blocksParts(body.content), stop)],
  };
}

/** A content block being streamed: its start block plus the deltas appended so far. */
type StreamedBlock = { start: JsonObject; text: string; json: string };

function stream(events: SseEvent[]): ResponseFields {
  const out: ResponseFields = { trace_id: null, model: null, usage: {}, finish_reasons: [], output_messages: [], sse_done: false };
  const blocks = new Map<number, StreamedBlock>();
  let message: JsonObject = {};
  let stop: string | undefined;
  for (const ev of events) {
    const d = parseJson(ev.data);
    if (!isRecord(d)) continue; // a cut final line is not JSON
    const index = asNumber(d.index) ?? 0;
    switch (asString(d.type) ?? ev.event) {
      case "message_start":
        message = isRecord(d.message) ? d.message : {};
        out.usage = usage(message.usage);
        break;
      case "content_block_start":
        blocks.set(index, { start: isRecord(d.content_block) ? d.content_block : {}, text: "", json: "" });
        break;
      case "content_block_delta":
        applyDelta(blocks, index, isRecord(d.delta) ? d.delta : {});
        break;
      case "message_delta":
        stop = (isRecord(d.delta) ? asString(d.delta.stop_reason) : undefined) ?? stop;
        out.usage = usage(d.usage, out.usage); // output_tokens here is the final count
        break;
      case "message_stop":
        out.sse_done = true;
        break;
      case "error":
        out.error ??= errorText(d);
        break;
    }
  }
  out.trace_id = asString(message.id) ?? null;
  out.model = asString(message.model) ?? null;
  out.finish_reasons = stop ? [stop] : [];
  // Blocks are assembled at the end rather than at content_block_stop so that a block cut
  // mid-stream still shows what arrived (partial tool JSON stays a string).
  const parts = [...blocks.entries()].sort(([a], [b]) => a - b).flatMap(([, b]) => streamedPart(b));
  if (blocks.size > 0 || stop) out.output_messages = [outputMessage(message.role, parts, stop)];
  return out;
}

function applyDelta(blocks: Map<number, StreamedBlock>, index: number, delta: JsonObject): void {
  let block = blocks.get(index);
  if (!block) blocks.set(index, (block = { start: { type: startTypeOf(delta) }, text: "", json: "" }));
  if (delta.type === "text_delta") block.text += asString(delta.text) ?? "";
  else if (delta.type === "thinking_delta") block.text += asString(delta.thinking) ?? "";
  else if (delta.type === "input_json_delta") block.json += asString(delta.partial_json) ?? "";
}

/** A delta whose content_block_start was never seen still tells what kind of block it is. */
function startTypeOf(delta: JsonObject): string {
  if (delta.type === "thinking_delta") return "thinking";
  return delta.type === "input_json_delta" ? "tool_use" : "text";
}

function streamedPart(b: StreamedBlock): Part[] {
  const s = b.start;
  const type = asString(s.type) ?? "";
  if (type === "text") return blockPart({ type, text: (asString(s.text) ?? "") + b.text });
  if (type === "thinking") return blockPart({ type, thinking: (asString(s.thinking) ?? "") + b.text });
  if (type.endsWith("tool_use")) {
    // The start block carries `input: {}`; the real input arrives as JSON fragments.
    return blockPart({ ...s, input: b.json ? parseArguments(b.json) : (s.input ?? {}) });
  }
  return blockPart(s);
}

/** `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` → "overloaded_error: Overloaded". */
function errorText(body: unknown): string | null {
  if (!isRecord(body)) return null;
  if (typeof body.error === "string") return body.error;
  if (!isRecord(body.error)) return null;
  const type = asString(body.error.type);
  const message = asString(body.error.message);
  if (type && message) return `${type}: ${message}`;
  return type ?? message ?? null;
}

export const anthropic: Adapter = { kind: "anthropic", request, response, stream, errorText };
