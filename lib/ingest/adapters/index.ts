// Raw captured provider exchange (SPEC §2.2) → normalized call (SPEC §2.1). The adapters read
// provider formats; this module picks one and adds what every format shares. Headers are read
// only to choose an adapter and are never copied: they carry API keys.

import { conversationScope, withToolCallIds } from "../toolCallIds";
import { isSuccessStatus, statusWithAnswer, type ChatMessage, type HttpExchange, type NormalizedCall, type Part } from "../../domain/calls";
import { anthropic } from "./anthropic";
import { openai } from "./openai";
import { openaiResponses } from "./openaiResponses";
import { isRecord, parseJson, parseSse, records, type SseEvent } from "./sse";

export type Usage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_creation_tokens?: number;
};

/** What an adapter reads from a request body. */
export type RequestFields = {
  model: string | null;
  max_tokens: number | null;
  system_instructions: Part[];
  input_messages: ChatMessage[];
  tools?: unknown;
};

/** What an adapter reads from a response, JSON or streamed. */
export type ResponseFields = {
  trace_id: string | null;
  model: string | null;
  usage: Usage;
  finish_reasons: string[];
  output_messages: ChatMessage[];
  /** streams only: the stream ended as its format ends one (a terminal event, or every choice finished) */
  sse_done?: boolean;
  /** an error reported inside the stream (or a 2xx body that says the response failed) */
  error?: string | null;
};

export type Adapter = {
  kind: "openai" | "anthropic";
  request(body: unknown): RequestFields;
  /** null: the body is not a response of this format */
  response(body: unknown): ResponseFields | null;
  stream(events: SseEvent[]): ResponseFields;
  /** readable text of an error body, null when it has no recognizable error */
  errorText(body: unknown): string | null;
};

const PROVIDER_BY_HOST = new Map([
  ["api.openai.com", "openai"],
  ["api.anthropic.com", "anthropic"],
  ["dashscope.aliyuncs.com", "dashscope"],
  ["dashscope-intl.aliyuncs.com", "dashscope"],
  ["api.deepseek.com", "deepseek"],
]);

export function normalizeExchange(x: HttpExchange): NormalizedCall {
  const { host, path } = parseUrl(x.request.url);
  const requestBody = parseBody(x.request.body);
  const adapter = pickAdapter(path, requestBody, x.request.headers);
  const req = adapter.request(requestBody);
  const res = readResponse(adapter, x.response);
  const fields = res.fields;
  // tool calls some OpenAI-compatible servers send with "" for an id, paired by order
  withToolCallIds(req.input_messages, fields?.output_messages ?? [], conversationScope(x.conversation_id ?? null, req.system_instructions, req.input_messages));
  return {
    call_id: x.call_id,
    trace_id: fields?.trace_id ?? null,
    session_id: x.session_id ?? null,
    conversation_id: x.conversation_id ?? null,
    turn_id: x.turn_id ?? null,
    agent_name: x.agent_name ?? null,
    pid: x.pid ?? null,
    process_name: x.process_name ?? null,
    host: x.host ?? null,
    provider: PROVIDER_BY_HOST.get(host ?? "") ?? (adapter.kind === "anthropic" ? "anthropic" : "openai-compatible"),
    model: fields?.model ?? req.model,
    server_address: host,
    start_ns: x.start_ns,
    end_ns: x.end_ns ?? null,
    duration_ns: x.end_ns != null ? x.end_ns - x.start_ns : null,
    status_code: statusWithAnswer(x.response?.status ?? null, answerRecorded(x)),
    error: x.error ?? res.error ?? null,
    response_body: res.response_body ?? null,
    is_sse: res.is_sse,
    sse_event_count: res.sse_event_count ?? null,
    sse_done: fields?.sse_done ?? null,
    cancelled: x.cancelled ?? null,
    response_invalid: res.response_invalid,
    max_tokens: req.max_tokens,
    input_tokens: fields?.usage.input_tokens ?? null,
    output_tokens: fields?.usage.output_tokens ?? null,
    cache_read_tokens: fields?.usage.cache_read_tokens ?? null,
    cache_creation_tokens: fields?.usage.cache_creation_tokens ?? null,
    finish_reasons: fields?.finish_reasons ?? [],
    system_instructions: req.system_instructions,
    input_messages: req.input_messages,
    output_messages: fields?.output_messages ?? [],
    tools: req.tools,
    recording_truncated: x.recording_truncated ?? null,
  };
}

/**
 * Whether the capture layer recorded the answer — a body or a stream — or said how much of it it
 * left out (the recording proxy's cap: then the call says so, and keeps its status).
 */
function answerRecorded(x: HttpExchange): boolean {
  const r = x.response;
  return !!x.recording_truncated || (r?.body !== undefined && r?.body !== null) || typeof r?.sse === "string";
}

function parseUrl(raw: string): { host: string | null; path: string } {
  try {
    const u = new URL(raw);
    return { host: u.hostname || null, path: u.pathname };
  } catch {
    return { host: null, path: raw.split(/[?#]/)[0] ?? "" }; // a bare path from the capture layer
  }
}

/** Bodies arrive parsed or as JSON text; text that is not JSON stays text. */
function parseBody(body: unknown): unknown {
  if (typeof body !== "string") return body;
  const parsed = parseJson(body);
  return parsed === undefined ? body : parsed;
}

function pickAdapter(path: string, body: unknown, headers: Record<string, string> | undefined): Adapter {
  // Also matches gateway prefixes: /apps/anthropic/v1/messages, /anthropic/v1/messages.
  if (/\/v1\/messages\/?$/.test(path)) return anthropic;
  if (/\/chat\/completions\/?$/.test(path)) return openai;
  if (/\/responses\/?$/.test(path) || (isRecord(body) && "input" in body && !("messages" in body))) return openaiResponses;
  return looksAnthropic(body, headers) ? anthropic : openai;
}

/** Paths of the APIs that generate (chat, messages, responses, completions, Gemini's generateContent). */
const MODEL_CALL_PATH = /(?:\/chat\/completions|\/v1\/messages|\/responses|\/completions)\/?$/i;
/**
 * Generating endpoints in a format no adapter reads (Gemini's own API: `contents` in,
 * `candidates` out): an answer read as OpenAI's would be judged invalid or empty, so they are
 * treated as the other endpoints: kept when they failed (a 429 is judged by its status).
 */
const UNREAD_MODEL_PATH = /:(?:stream)?generateContent\/?$/i;
/** Endpoints beside them that generate nothing (their bodies can hold messages or input too). */
const OTHER_PATH = /\/(?:embed(?:dings?)?|moderations|models|files|uploads|batches|count_tokens|input_tokens|audio|images|fine_tuning|vector_stores|assistants|threads)(?:\/|$)/i;

/**
 * Whether an exchange is a model call: a generating path, or (a gateway's own path) a request
 * body that holds messages or input. A model list, embeddings or token counting is not: such
 * an exchange is not a call to judge (its body has no answer, so it would read as invalid or
 * empty) and is stored only when it failed (a 401 or a 429 there is the agent's failure too).
 */
export function isModelCall(x: HttpExchange): boolean {
  const { path } = parseUrl(x.request.url);
  if (x.request.method && x.request.method.toUpperCase() !== "POST") return false; // a list of stored responses, say
  if (MODEL_CALL_PATH.test(path)) return true;
  if (OTHER_PATH.test(path) || UNREAD_MODEL_PATH.test(path)) return false;
  const body = parseBody(x.request.body);
  return isRecord(body) && (Array.isArray(body.messages) || "input" in body || "prompt" in body);
}

/** Whether an exchange failed: no answer, an error, or a status other than 2xx. */
export function exchangeFailed(x: HttpExchange): boolean {
  return !!x.error || !isSuccessStatus(x.response?.status);
}

function looksAnthropic(body: unknown, headers: Record<string, string> | undefined): boolean {
  if (headers && Object.keys(headers).some((k) => k.toLowerCase() === "anthropic-version")) return true;
  if (!isRecord(body)) return false;
  // Chat Completions has no top-level `system`, and no typed tool/thinking blocks in content.
  if ("system" in body || "anthropic_version" in body) return true;
  return records(body.messages).some((m) =>
    records(m.content).some((b) => b.type === "tool_use" || b.type === "tool_result" || b.type === "thinking"),
  );
}

type ResponseOutcome = {
  fields: ResponseFields | null;
  is_sse: boolean;
  sse_event_count?: number;
  response_invalid: boolean;
  response_body?: string;
  error?: string | null;
};

function readResponse(adapter: Adapter, r: HttpExchange["response"]): ResponseOutcome {
  if (!r) return { fields: null, is_sse: false, response_invalid: false };
  const status = r.status ?? null;
  const failed = status !== null && (status < 200 || status > 299);
  const sse = sseText(r);
  if (sse !== null) {
    const events = parseSse(sse);
    const fields = adapter.stream(events);
    return {
      fields,
      is_sse: true,
      sse_event_count: events.length,
      response_invalid: false,
      response_body: failed ? sse : undefined,
      error: fields.error,
    };
  }
  // null/undefined: the capture layer did not record a body, which says nothing about its validity.
  if (r.body === undefined || r.body === null) return { fields: null, is_sse: false, response_invalid: false };
  const body = parseBody(r.body);
  const fields = adapter.response(body);
  if (failed) {
    return { fields, is_sse: false, response_invalid: false, response_body: rawText(r.body), error: adapter.errorText(body) };
  }
  if (fields) return { fields, is_sse: false, response_invalid: false, error: fields.error }; // (a Responses API body that says it failed)
  // A 2xx body of the wrong shape (an HTML page, `{"error":…}`) is invalid; its error text still counts.
  return { fields, is_sse: false, response_invalid: status !== null, error: adapter.errorText(body) };
}

/** The raw stream, also when a capture layer stored it as the body text. */
function sseText(r: NonNullable<HttpExchange["response"]>): string | null {
  if (typeof r.sse === "string") return r.sse;
  if (typeof r.body !== "string") return null;
  const contentType = Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === "content-type")?.[1] ?? "";
  if (contentType.includes("text/event-stream")) return r.body;
  return /^(data|event):/.test(r.body.trimStart()) ? r.body : null;
}

function rawText(body: unknown): string {
  return typeof body === "string" ? body : JSON.stringify(body);
}
