// Provider wire formats for the demo's raw exchanges (SPEC §2.2): the request bodies and the
// JSON / text/event-stream responses an HTTP capture layer would record. The histories are
// written from the same normalized messages the demo's other calls use, so a conversation can
// mix raw exchanges and normalized calls.
import type { ChatMessage, Part, ToolCallPart } from "../domain/calls";

export type JsonObject = { [key: string]: unknown };

const textOf = (parts: Part[]) =>
  parts
    .flatMap((p) => (p.type === "text" ? [p.content] : []))
    .join("\n");
const reasoningOf = (parts: Part[]) =>
  parts
    .flatMap((p) => (p.type === "reasoning" ? [p.content] : []))
    .join("\n");
const toolCallsOf = (parts: Part[]): ToolCallPart[] => parts.filter((p): p is ToolCallPart => p.type === "tool_call");
const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions (and OpenAI-compatible gateways such as DashScope)

export function openaiMessages(system: string, history: ChatMessage[]): JsonObject[] {
  const out: JsonObject[] = [{ role: "system", content: system }];
  for (const m of history) {
    if (m.role === "tool") {
      for (const p of m.parts) {
        if (p.type === "tool_call_response") out.push({ role: "tool", tool_call_id: p.id, content: asText(p.response) });
      }
      continue;
    }
    const msg: JsonObject = { role: m.role, content: textOf(m.parts) || null };
    const reasoning = reasoningOf(m.parts);
    if (reasoning) msg.reasoning_content = reasoning;
    const calls = toolCallsOf(m.parts);
    if (calls.length) msg.tool_calls = calls.map(openaiToolCall);
    out.push(msg);
  }
  return out;
}

const openaiToolCall = (c: ToolCallPart) => ({
  id: c.id,
  type: "function",
  function: { name: c.name, arguments: JSON.stringify(c.arguments) },
});

export type Usage = { input: number; output: number; cacheRead?: number };

export function openaiResponse(o: {
  id: string;
  created: number;
  model: string;
  parts: Part[];
  finish: string;
  usage: Usage;
}): JsonObject {
  const message: JsonObject = { role: "assistant", content: textOf(o.parts) || null };
  const reasoning = reasoningOf(o.parts);
  if (reasoning) message.reasoning_content = reasoning;
  const calls = toolCallsOf(o.parts);
  if (calls.length) message.tool_calls = calls.map(openaiToolCall);
  return {
    id: o.id,
    object: "chat.completion",
    created: o.created,
    model: o.model,
    choices: [{ index: 0, message, finish_reason: o.finish, logprobs: null }],
    usage: {
      prompt_tokens: o.usage.input,
      completion_tokens: o.usage.output,
      total_tokens: o.usage.input + o.usage.output,
      prompt_tokens_details: { cached_tokens: o.usage.cacheRead ?? 0 },
    },
    system_fingerprint: null,
  };
}

/** Splits text into stream-sized pieces (a few words each, whitespace kept). */
export function pieces(text: string, words = 3): string[] {
  const tokens = text.match(/\S+\s*/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += words) out.push(tokens.slice(i, i + words).join(""));
  return out;
}

/**
 * An OpenAI chat.completion.chunk stream. `cutAfter` (a number of chunks) simulates a stream
 * cut by a proxy: the stream stops mid-line, with no finish_reason and no `data: [DONE]`.
 */
export function openaiSse(o: {
  id: string;
  created: number;
  model: string;
  parts: Part[];
  finish: string;
  usage: Usage;
  cutAfter?: number;
}): { sse: string; events: number } {
  const base = { id: o.id, object: "chat.completion.chunk", created: o.created, model: o.model };
  const chunk = (delta: JsonObject, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks: JsonObject[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of pieces(reasoningOf(o.parts))) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of pieces(textOf(o.parts))) chunks.push(chunk({ content: piece }));
  toolCallsOf(o.parts).forEach((c, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const piece of pieces(JSON.stringify(c.arguments), 2)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  if (o.cutAfter !== undefined) {
    const kept = chunks.slice(0, o.cutAfter);
    const next = JSON.stringify(chunks[o.cutAfter] ?? chunk({ content: "…" }));
    // The proxy dropped the connection in the middle of the next line.
    const sse = kept.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + `data: ${next.slice(0, Math.floor(next.length / 2))}`;
    return { sse, events: kept.length + 1 };
  }
  chunks.push(chunk({}, o.finish));
  chunks.push({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: o.usage.input,
      completion_tokens: o.usage.output,
      total_tokens: o.usage.input + o.usage.output,
      prompt_tokens_details: { cached_tokens: o.usage.cacheRead ?? 0 },
    },
  });
  const sse = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
  return { sse, events: chunks.length + 1 };
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

function anthropicBlocks(parts: Part[], signature: string): JsonObject[] {
  const blocks: JsonObject[] = [];
  for (const p of parts) {
    if (p.type === "reasoning") blocks.push({ type: "thinking", thinking: p.content, signature });
    else if (p.type === "text") blocks.push({ type: "text", text: p.content });
    else if (p.type === "tool_call") blocks.push({ type: "tool_use", id: p.id, name: p.name, input: p.arguments });
  }
  return blocks;
}

export function anthropicMessages(history: ChatMessage[], signature: string): JsonObject[] {
  const out: JsonObject[] = [];
  for (const m of history) {
    if (m.role === "tool") {
      out.push({
        role: "user",
        content: m.parts.flatMap((p) =>
          p.type === "tool_call_response"
            ? [{ type: "tool_result", tool_use_id: p.id, content: asText(p.response), ...(p.is_error ? { is_error: true } : {}) }]
            : [],
        ),
      });
    } else if (m.role === "user") {
      out.push({ role: "user", content: textOf(m.parts) });
    } else {
      out.push({ role: m.role, content: anthropicBlocks(m.parts, signature) });
    }
  }
  return out;
}

const event = (type: string, data: JsonObject) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** A complete Anthropic Messages stream: message_start … message_stop, with pings. */
export function anthropicSse(o: {
  id: string;
  model: string;
  parts: Part[];
  stopReason: string;
  usage: Usage;
  signature: string;
}): { sse: string; events: number } {
  const out: string[] = [];
  out.push(
    event("message_start", {
      message: {
        id: o.id, type: "message", role: "assistant", model: o.model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: o.usage.input, cache_read_input_tokens: o.usage.cacheRead ?? 0, cache_creation_input_tokens: 0, output_tokens: 1 },
      },
    }),
  );
  out.push(event("ping", {}));
  o.parts.forEach((p, index) => {
    if (p.type === "reasoning") {
      out.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }));
      for (const piece of pieces(p.content)) out.push(event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
      out.push(event("content_block_delta", { index, delta: { type: "signature_delta", signature: o.signature } }));
    } else if (p.type === "text") {
      out.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const piece of pieces(p.content)) out.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    } else if (p.type === "tool_call") {
      out.push(event("content_block_start", { index, content_block: { type: "tool_use", id: p.id, name: p.name, input: {} } }));
      for (const piece of pieces(JSON.stringify(p.arguments), 2)) {
        out.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
      }
    } else return;
    out.push(event("content_block_stop", { index }));
  });
  out.push(event("message_delta", { delta: { stop_reason: o.stopReason, stop_sequence: null }, usage: { output_tokens: o.usage.output } }));
  out.push(event("message_stop", {}));
  return { sse: out.join(""), events: out.length };
}
