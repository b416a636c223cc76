// Spans → SightDesk's ingest items (SPEC §2.7): GenAI semantic-convention spans (current
// attributes and the older gen_ai.* events) and OpenInference LLM spans become normalized calls
// (the JSON body of /api/ingest/calls, §2.1); execute_tool spans become tool_result events
// (§2.3). Other spans are not GenAI spans: null. Pure functions.
import { statusWithAnswer, type ChatMessage, type Part } from "../domain/calls";
import { sessionIdOf } from "../ingest/keys";
import { conversationScope, withToolCallIds } from "../ingest/toolCallIds";
import { message, messages, openInferenceMessages, structured, systemInstructions, toolArguments } from "./messages";
import { STATUS_ERROR, STATUS_OK, type Attributes, type AttrValue, type OtlpSpan } from "./model";

/** What a span is to SightDesk. */
export type SpanRole = "call" | "tool" | "openinference" | null;

const CALL_OPERATIONS = new Set(["chat", "text_completion", "generate_content"]);
const AGENT_OPERATIONS = new Set(["invoke_agent", "create_agent"]);

/** A span with its resource and the spans around it (for the enclosing invoke_agent span). */
export type SpanContext = { resource: Attributes; byId: Map<string, OtlpSpan> };

export function spanRole(span: OtlpSpan): SpanRole {
  const a = span.attributes;
  const operation = a["gen_ai.operation.name"];
  if (typeof operation === "string") {
    if (CALL_OPERATIONS.has(operation)) return "call";
    if (operation === "execute_tool") return "tool";
    return null;
  }
  const kind = a["openinference.span.kind"];
  if (typeof kind === "string" && kind.toUpperCase() === "LLM") return "openinference";
  // instrumentations that predate gen_ai.operation.name still name the system and the model
  if ((a["gen_ai.system"] != null || a["gen_ai.provider.name"] != null) && a["gen_ai.request.model"] != null) return "call";
  return null;
}

const text = (v: AttrValue | undefined): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);

function count(v: AttrValue | undefined): number | null {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 2_147_483_647 ? n : null;
}

function strings(v: AttrValue | undefined): string[] | null {
  const value = structured(v);
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) return null;
  return value.filter((x): x is string => typeof x === "string");
}

/** First of `keys` set on the span, then on its resource. */
function pick(span: OtlpSpan, resource: Attributes, ...keys: string[]): AttrValue | undefined {
  for (const k of keys) if (span.attributes[k] != null) return span.attributes[k];
  for (const k of keys) if (resource[k] != null) return resource[k];
  return undefined;
}

/** The agent: the span's gen_ai.agent.name, else the enclosing invoke_agent span's, else service.name. */
function agentName(span: OtlpSpan, ctx: SpanContext): string | null {
  const own = text(span.attributes["gen_ai.agent.name"]) ?? text(span.attributes["agent.name"]);
  if (own) return own;
  let parent = ctx.byId.get(span.parentSpanId);
  for (let hops = 0; parent && hops < 64; hops++) {
    const name = text(parent.attributes["gen_ai.agent.name"]);
    if (name && (AGENT_OPERATIONS.has(String(parent.attributes["gen_ai.operation.name"])) || hops === 0)) return name;
    parent = ctx.byId.get(parent.parentSpanId);
  }
  return serviceName(ctx);
}

function serviceName(ctx: SpanContext): string | null {
  const service = text(ctx.resource["service.name"]);
  return service && !service.startsWith("unknown_service") ? service : null;
}

/**
 * The call's origin from the span and its resource (SPEC §2.7: resource attributes fill the
 * rest). Without a session.id the session is the process the resource describes (one run of an
 * agent process, SPEC §1) — not its agent name, which may come from an invoke_agent span that an
 * exporter sends in a later batch than its children.
 */
function origin(span: OtlpSpan, ctx: SpanContext) {
  const pid = count(ctx.resource["process.pid"]);
  const host = text(ctx.resource["host.name"]);
  return {
    session_id: text(pick(span, ctx.resource, "session.id", "gen_ai.session.id")) ?? sessionIdOf({ agent_name: serviceName(ctx), pid, host }),
    conversation_id: text(pick(span, ctx.resource, "gen_ai.conversation.id")),
    agent_name: agentName(span, ctx),
    pid,
    process_name: text(ctx.resource["process.executable.name"]),
    host,
  };
}

export type SpanError = { failed: boolean; text: string | null; statusCode: number | null };

/** Errors from span status ERROR, error.type, exception events and http.response.status_code. */
export function spanError(span: OtlpSpan): SpanError {
  const a = span.attributes;
  const texts: string[] = [];
  const errorType = text(a["error.type"]);
  for (const e of span.events) {
    if (e.name !== "exception") continue;
    const type = text(e.attributes["exception.type"]);
    const msg = text(e.attributes["exception.message"]);
    texts.push([type, msg].filter(Boolean).join(": "));
  }
  if (span.status.message && !texts.some((t) => t.includes(span.status.message))) texts.unshift(span.status.message);
  if (errorType && !texts.some((t) => t.includes(errorType))) texts.unshift(errorType);
  // an exception or error.type on a span its instrumentation marked OK was handled (e.g. retried)
  const failed = span.status.code === STATUS_ERROR || (span.status.code !== STATUS_OK && (errorType !== null || texts.length > 0));
  let statusCode = count(a["http.response.status_code"] ?? a["http.status_code"]);
  if (statusCode === null && errorType && /^[1-5]\d\d$/.test(errorType)) statusCode = Number(errorType);
  if (statusCode !== null && (statusCode < 100 || statusCode > 599)) statusCode = null;
  const joined = texts.filter(Boolean).join("; ");
  return { failed, text: failed ? joined || "span status ERROR" : null, statusCode };
}

const callId = (span: OtlpSpan) => span.traceId + span.spanId;

/** Whether a gen_ai.choice (or its message) holds content: with capture off, senders keep the event without it (some keep {"role": "assistant"}). */
const saysSomething = (o: unknown): boolean =>
  typeof o === "object" && o !== null && ((o as Record<string, unknown>).content != null || (o as Record<string, unknown>).tool_calls != null);

/**
 * Whether a messages attribute, read by `structured`, holds messages (an array or one object):
 * what tells that the output was captured. One that does not (JSON cut short by an attribute
 * length limit, say) is not captured: an output we cannot read is no evidence of an empty one.
 */
const holdsMessages = (value: unknown): boolean => typeof value === "object" && value !== null;

/** The older event form: gen_ai.system/user/assistant/tool.message events and gen_ai.choice. */
function eventMessages(span: OtlpSpan): { system: Part[] | null; input: ChatMessage[]; output: ChatMessage[]; outputCaptured: boolean } | null {
  let system: Part[] | null = null;
  const input: ChatMessage[] = [];
  const output: ChatMessage[] = [];
  let seen = false;
  // a gen_ai.choice without content, message or tool calls was recorded with content capture off
  let outputCaptured = false;
  for (const e of span.events) {
    const a = e.attributes;
    // some senders put the event body, as JSON, in one attribute
    const bodyValue = structured(a["gen_ai.event.content"] ?? a["event.body"] ?? a["body"]);
    const body: Record<string, unknown> = typeof bodyValue === "object" && bodyValue !== null && !Array.isArray(bodyValue) ? { ...a, ...bodyValue } : { ...a };
    const role = e.name.match(/^gen_ai\.(system|user|assistant|tool)\.message$/)?.[1];
    if (role) {
      seen = true;
      const m = message({ ...body, role: typeof body.role === "string" ? body.role : role }, role);
      if (!m) continue;
      if (role === "system" && input.length === 0) (system ??= []).push(...m.parts); // in place: a copy per event was quadratic
      else input.push(m);
    } else if (e.name === "gen_ai.choice") {
      seen = true;
      const inner = structured(body.message);
      // a message that is text: plain text is what it said; text that opens JSON and does not
      // parse was cut (an attribute length limit), and says nothing of what was answered
      const cut = typeof inner === "string" && /^\s*[{[]/.test(inner);
      const said = typeof inner === "string" ? (cut ? {} : { content: inner }) : null;
      if (saysSomething(inner) || saysSomething(body) || (typeof inner === "string" && !cut)) outputCaptured = true;
      const m = message({ role: "assistant", ...(said ?? (typeof inner === "object" && inner !== null ? inner : { content: body.content, tool_calls: body.tool_calls })), finish_reason: body.finish_reason }, "assistant");
      if (m) output.push(m);
    } else if (e.name === "gen_ai.content.prompt") {
      seen = true;
      input.push(...messages(a["gen_ai.prompt"]));
    } else if (e.name === "gen_ai.content.completion") {
      seen = true;
      const completion = structured(a["gen_ai.completion"]);
      if (holdsMessages(completion)) outputCaptured = true;
      output.push(...messages(completion, "assistant"));
    }
  }
  if (!seen) return null;
  if (!system && input[0]?.role === "system") system = input.shift()!.parts;
  return { system, input, output, outputCaptured };
}

/** The JSON body of /api/ingest/calls for a GenAI call span (SPEC §2.1). */
export function genAiCall(span: OtlpSpan, ctx: SpanContext): Record<string, unknown> {
  const a = span.attributes;
  const fromEvents = eventMessages(span);
  const hasInputAttr = a["gen_ai.input.messages"] != null;
  const outputValue = structured(a["gen_ai.output.messages"]);
  const hasOutputAttr = holdsMessages(outputValue);
  const input = hasInputAttr ? messages(a["gen_ai.input.messages"]) : fromEvents?.input ?? [];
  const output = hasOutputAttr ? messages(outputValue, "assistant") : fromEvents?.output ?? [];
  let system = systemInstructions(a["gen_ai.system_instructions"]) ?? (hasInputAttr ? null : fromEvents?.system ?? null);
  if (!system && input[0]?.role === "system") system = input.shift()!.parts;
  const who = origin(span, ctx);
  withToolCallIds(input, output, conversationScope(who.conversation_id, system, input));
  const finish = strings(a["gen_ai.response.finish_reasons"]) ?? output.map((m) => m.finish_reason).filter((r): r is string => !!r);
  const captured = hasOutputAttr || (fromEvents?.outputCaptured ?? false);
  return {
    call_id: callId(span),
    trace_id: text(a["gen_ai.response.id"]),
    ...who,
    provider: text(a["gen_ai.provider.name"] ?? a["gen_ai.system"]),
    model: text(a["gen_ai.response.model"] ?? a["gen_ai.request.model"]),
    server_address: text(a["server.address"]),
    max_tokens: count(a["gen_ai.request.max_tokens"]),
    input_tokens: count(a["gen_ai.usage.input_tokens"] ?? a["gen_ai.usage.prompt_tokens"]),
    output_tokens: count(a["gen_ai.usage.output_tokens"] ?? a["gen_ai.usage.completion_tokens"]),
    cache_read_tokens: count(a["gen_ai.usage.cache_read.input_tokens"] ?? a["gen_ai.usage.cache_read_input_tokens"]),
    cache_creation_tokens: count(a["gen_ai.usage.cache_creation.input_tokens"] ?? a["gen_ai.usage.cache_creation_input_tokens"]),
    finish_reasons: finish,
    system_instructions: system,
    input_messages: input,
    output_messages: output,
    ...(a["gen_ai.tool.definitions"] != null ? { tools: structured(a["gen_ai.tool.definitions"]) } : {}),
    ...times(span),
    ...outcome(span, captured),
  };
}

/** The JSON body of /api/ingest/calls for an OpenInference LLM span. */
export function openInferenceCall(span: OtlpSpan, ctx: SpanContext): Record<string, unknown> {
  const a = span.attributes;
  const { input, output } = openInferenceMessages(a);
  const system = input[0]?.role === "system" ? input.shift()!.parts : null;
  const who = origin(span, ctx);
  withToolCallIds(input, output, conversationScope(who.conversation_id, system, input));
  const params = structured(a["llm.invocation_parameters"]);
  const p = typeof params === "object" && params !== null && !Array.isArray(params) ? (params as Record<string, AttrValue>) : {};
  return {
    call_id: callId(span),
    ...who,
    provider: text(a["llm.provider"] ?? a["llm.system"]),
    model: text(a["llm.model_name"]),
    max_tokens: count(p.max_tokens ?? p.max_completion_tokens ?? p.max_output_tokens),
    input_tokens: count(a["llm.token_count.prompt"]),
    output_tokens: count(a["llm.token_count.completion"]),
    cache_read_tokens: count(a["llm.token_count.prompt_details.cache_read"]),
    cache_creation_tokens: count(a["llm.token_count.prompt_details.cache_write"]),
    finish_reasons: output.map((m) => m.finish_reason).filter((r): r is string => !!r),
    system_instructions: system,
    input_messages: input,
    output_messages: output,
    ...(a["llm.tools"] != null ? { tools: structured(a["llm.tools"]) } : {}),
    ...times(span),
    ...outcome(span, output.length > 0),
  };
}

function times(span: OtlpSpan) {
  return { start_ns: span.startNs, end_ns: span.endNs >= span.startNs && span.endNs > 0n ? span.endNs : null };
}

/**
 * Status and error. A span without an error answered: 200 — but only when its output was
 * captured, since instrumentations record no message content by default and an unknown output
 * must not read as an empty response. For the same reason an HTTP status of success the span
 * records (botocore's Bedrock spans do) is kept only with its output.
 */
function outcome(span: OtlpSpan, outputCaptured: boolean) {
  const err = spanError(span);
  return { status_code: statusWithAnswer(err.statusCode ?? (err.failed ? null : 200), outputCaptured), error: err.text };
}

/** The body of a tool_result event (SPEC §2.3) for an execute_tool span. */
export function toolResultEvent(span: OtlpSpan, ctx: SpanContext): Record<string, unknown> {
  const a = span.attributes;
  const who = origin(span, ctx);
  const err = spanError(span);
  const result = a["gen_ai.tool.call.result"];
  return {
    kind: "tool_result",
    session_id: who.session_id,
    conversation_id: who.conversation_id,
    tool_call_id: text(a["gen_ai.tool.call.id"]) ?? callId(span),
    name: text(a["gen_ai.tool.name"]) ?? span.name,
    ...(a["gen_ai.tool.call.arguments"] != null ? { arguments: toolArguments(a["gen_ai.tool.call.arguments"]) } : {}),
    ...(result != null ? { response: structured(result) } : {}),
    success: !err.failed,
    error: err.text,
    duration_ns: span.endNs >= span.startNs ? span.endNs - span.startNs : null,
    at_ns: span.endNs || span.startNs,
  };
}
