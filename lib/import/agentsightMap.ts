// AgentSight rows to SightDesk records. A genai_events row becomes the JSON body of
// `POST /api/ingest/calls` (SPEC §2.1, nanoseconds as digit strings), which the local import
// validates with the API's own schema, so both paths store exactly the same thing. An
// interruption_events row becomes an Interruption row that keeps AgentSight's id, type,
// severity, time, detail and resolved flag.
import { fingerprintOf, type InterruptionRow } from "../ingest/interruptions";
import { redactValue } from "../ingest/redact";
import type { SourceRow } from "./agentsightSource";
import { tryParseJson } from "../json";
import { Memo } from "../memo";

export type WireCall = Record<string, unknown> & { call_id: string };

/** How old a `pending` row must be (by its start) before it is given up on rather than waited for. */
export const STALE_PENDING_NS = 15n * 60n * 1_000_000_000n;

export const IMPORT_ACTOR = "import:agentsight";

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const nonEmpty = (v: unknown): string | null => {
  const t = text(v)?.trim();
  return t ? t : null;
};

/** A bigint/number column as a JS number (null when absent or not an integer). */
function int(v: unknown, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | null {
  if (typeof v === "bigint") v = Number(v);
  if (typeof v === "string" && /^-?\d+$/.test(v.trim())) v = Number(v);
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) return null;
  return v;
}

/** A nanosecond column, exact, as a bigint (null when absent or negative). */
export function nsOf(v: unknown): bigint | null {
  if (typeof v === "bigint") return v >= 0n ? v : null;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^\d{1,20}$/.test(v.trim())) return BigInt(v.trim());
  return null;
}

/**
 * Below this a time is not in nanoseconds since 1970 (it is 1973-03-03): seconds or milliseconds
 * (1718000000, 1718000000000) written by another tool would be stored as moments of 1970, out of
 * every window and the first rows retention deletes.
 */
const MIN_EPOCH_NS = 100_000_000_000_000_000n;

/** Why a time column cannot be taken, or null when it can. */
function notEpochNs(column: string, ns: bigint | null): string | null {
  if (ns === null) return `no ${column}`;
  return ns < MIN_EPOCH_NS ? `${column} ${ns} is not in nanoseconds since 1970 (seconds or milliseconds?)` : null;
}

/** JSON text parsed leniently: invalid (or too deeply nested) JSON is returned as the text itself. */
function parseLoose(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v !== "string") return v;
  const t = v.trim();
  if (!t) return null;
  const parsed = tryParseJson(t); // bounded depth: what reads it next recurses
  return parsed === undefined ? t : parsed;
}

const asString = (v: unknown) => (typeof v === "string" ? v : v === null || v === undefined ? "" : JSON.stringify(v));

/** One part in the parts format; other shapes become text, unusable ones are dropped. */
function part(p: unknown): Record<string, unknown> | null {
  if (typeof p === "string") return { type: "text", content: p };
  if (!p || typeof p !== "object") return null;
  const o = p as Record<string, unknown>;
  switch (o.type) {
    case "text":
    case "reasoning":
      return { type: o.type, content: asString(o.content ?? o.text) };
    case "tool_call": {
      const id = nonEmpty(o.id);
      if (!id) return null;
      return { type: "tool_call", id, name: asString(o.name), arguments: parseLoose(o.arguments) ?? {} };
    }
    case "tool_call_response": {
      const id = nonEmpty(o.id);
      if (!id) return null;
      const out: Record<string, unknown> = { type: "tool_call_response", id, response: o.response ?? null };
      if (typeof o.is_error === "boolean") out.is_error = o.is_error;
      return out;
    }
    default:
      return typeof o.content === "string" ? { type: "text", content: o.content } : null;
  }
}

function parts(v: unknown): Record<string, unknown>[] {
  if (typeof v === "string") return v ? [{ type: "text", content: v }] : [];
  if (!Array.isArray(v)) return [];
  return v.map(part).filter((p): p is Record<string, unknown> => p !== null);
}

/** A message list in the parts format (also accepts `{role, content}` messages). */
function messages(v: unknown): Record<string, unknown>[] {
  const parsed = parseLoose(v);
  if (!Array.isArray(parsed)) return typeof parsed === "string" ? [{ role: "user", parts: parts(parsed) }] : [];
  const out: Record<string, unknown>[] = [];
  for (const m of parsed) {
    if (!m || typeof m !== "object") continue;
    const o = m as Record<string, unknown>;
    const msg: Record<string, unknown> = { role: nonEmpty(o.role) ?? "unknown", parts: parts(o.parts ?? o.content) };
    if (typeof o.finish_reason === "string") msg.finish_reason = o.finish_reason;
    out.push(msg);
  }
  return out;
}

function finishReasons(v: unknown): string[] | null {
  const parsed = parseLoose(v);
  if (parsed === null) return null;
  if (Array.isArray(parsed)) return parsed.filter((r) => r !== null && r !== undefined).map(String);
  return String(parsed)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function bool(v: unknown): boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v !== 0n;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "boolean") return v;
  return ["1", "true"].includes(String(v).toLowerCase());
}

/** AgentSight columns with no normalized field, kept under `agentsight` in the raw record. */
const KEPT = [
  "id", "event_type", "status", "instance", "operation_name", "request_model", "response_model", "temperature",
  "top_p", "frequency_penalty", "presence_penalty", "total_tokens", "user_query", "http_method", "http_path",
  "interruption_type", "tool_call_ids",
] as const;

export type CallMapping = { kind: "call"; call: WireCall } | { kind: "pending" } | { kind: "skip"; reason: string };

/**
 * One genai_events row as a normalized call. `pending` rows (the call is still in flight) are
 * not imported until AgentSight settles them, unless they are stale. `interrupted` means the
 * response was cut off: the stream never saw its terminal event.
 */
export function mapCall(row: SourceRow, nowNs: bigint): CallMapping {
  const callId = nonEmpty(row.call_id);
  if (!callId) return { kind: "skip", reason: `row ${text(row.id)}: no call_id` };
  const start = nsOf(row.start_timestamp_ns);
  const badStart = notEpochNs("start_timestamp_ns", start);
  if (badStart !== null || start === null) return { kind: "skip", reason: `row ${text(row.id)} (${callId}): ${badStart}` };
  const status = (nonEmpty(row.status) ?? "complete").toLowerCase();
  if (status === "pending") {
    if (nowNs - start < STALE_PENDING_NS) return { kind: "pending" };
    return { kind: "skip", reason: `row ${text(row.id)} (${callId}): still pending after ${STALE_PENDING_NS / 60_000_000_000n} minutes` };
  }
  const isSse = bool(row.is_sse);
  const statusCode = int(row.status_code, 100, 599);
  const call: WireCall = {
    call_id: callId,
    trace_id: nonEmpty(row.trace_id),
    session_id: nonEmpty(row.session_id),
    conversation_id: nonEmpty(row.conversation_id),
    agent_name: nonEmpty(row.agent_name),
    pid: int(row.pid),
    process_name: nonEmpty(row.process_name),
    provider: nonEmpty(row.provider),
    model: nonEmpty(row.model) ?? nonEmpty(row.response_model) ?? nonEmpty(row.request_model),
    server_address: nonEmpty(row.server_address),
    start_ns: String(start),
    end_ns: nsOf(row.end_timestamp_ns)?.toString() ?? null,
    duration_ns: nsOf(row.duration_ns)?.toString() ?? null,
    status_code: statusCode,
    is_sse: isSse,
    sse_event_count: int(row.sse_event_count, 0),
    max_tokens: int(row.max_tokens, 0),
    input_tokens: int(row.input_tokens, 0),
    output_tokens: int(row.output_tokens, 0),
    cache_read_tokens: int(row.cache_read_tokens, 0),
    cache_creation_tokens: int(row.cache_creation_tokens, 0),
    finish_reasons: finishReasons(row.finish_reasons),
    system_instructions: row.system_instructions == null ? null : parts(parseLoose(row.system_instructions)),
    input_messages: messages(row.input_messages),
    output_messages: messages(row.output_messages),
  };
  if (status === "interrupted") {
    call.sse_done = false;
    if (!isSse) call.error = "response interrupted before it completed (AgentSight status: interrupted)";
  } else if (isSse) {
    call.sse_done = true; // AgentSight marks a stream complete when it saw it end
  }
  const kept: Record<string, unknown> = {};
  for (const k of KEPT) {
    const v = row[k];
    if (v !== null && v !== undefined) kept[k] = typeof v === "bigint" ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v;
  }
  call.agentsight = kept;
  return { kind: "call", call };
}

/** What the interruption row takes from the imported call it belongs to, when that exists. */
export type CallLink = { turnId: string | null; model: string | null };

/** An imported Interruption row: open, or resolved by the import when AgentSight had resolved it. */
export type ImportedInterruption = InterruptionRow & { status: "open" | "resolved"; resolvedBy: string | null; resolvedAtNs: bigint | null };

export type InterruptionMapping = { kind: "interruption"; row: ImportedInterruption } | { kind: "skip"; reason: string };

const ID = /^[0-9a-z][0-9a-z_.:-]{0,127}$/i;

/** What an interruption row derives from its detail: the detail as stored, its model and fingerprint. */
type Derived = { detail: string; model: string | null; fingerprint: string };

// AgentSight writes the same few details over and over (an error's status and message, a model):
// parsing, redacting and hashing each costs more than inserting the row. Derived values depend
// only on the key, so a bounded memo of them is exact.
const derivedMemo = new Memo<Derived>(10_000);

function derive(type: string, agentName: string | null, linkModel: string | null, raw: unknown): Derived {
  const parsed = parseLoose(raw);
  const detail: Record<string, unknown> =
    parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : parsed === null ? {} : { raw: parsed };
  const model = linkModel ?? (typeof detail.model === "string" ? detail.model : null);
  return { detail: JSON.stringify(redactValue(detail)), model, fingerprint: fingerprintOf(type, agentName, model, detail) };
}

/** A part of a memo key that no other part can run into: its length, then itself ("-" for null). */
const keyPart = (v: string | null) => (v === null ? "-" : `${v.length}:${v}`);

function derived(type: string, agentName: string | null, linkModel: string | null, raw: unknown): Derived {
  if (raw !== null && raw !== undefined && typeof raw !== "string") return derive(type, agentName, linkModel, raw);
  const key = `${keyPart(type)}${keyPart(agentName)}${keyPart(linkModel)}${raw ?? ""}`;
  return derivedMemo.get(key, () => derive(type, agentName, linkModel, raw));
}

/** One interruption_events row as an Interruption row, created (and, when resolved in AgentSight, resolved) at `nowNs`. */
export function mapInterruption(row: SourceRow, link: CallLink | undefined, nowNs: bigint): InterruptionMapping {
  const id = nonEmpty(row.interruption_id);
  if (!id || !ID.test(id)) return { kind: "skip", reason: `interruption row ${text(row.id)}: invalid interruption_id` };
  const type = nonEmpty(row.interruption_type);
  const severity = nonEmpty(row.severity)?.toLowerCase() ?? null;
  const at = nsOf(row.occurred_at_ns);
  if (!type || !severity || at === null) return { kind: "skip", reason: `interruption ${id}: missing type, severity or occurred_at_ns` };
  const badAt = notEpochNs("occurred_at_ns", at);
  if (badAt !== null) return { kind: "skip", reason: `interruption ${id}: ${badAt}` };
  const agentName = nonEmpty(row.agent_name);
  const d = derived(type, agentName, link?.model ?? null, row.detail);
  const resolved = bool(row.resolved) === true;
  return {
    kind: "interruption",
    row: {
      id,
      sessionId: nonEmpty(row.session_id),
      conversationId: nonEmpty(row.conversation_id),
      turnId: link?.turnId ?? null,
      callId: nonEmpty(row.call_id),
      traceId: nonEmpty(row.trace_id),
      pid: int(row.pid),
      agentName,
      model: d.model,
      type,
      severity,
      occurredAtNs: at,
      lastSeenNs: at,
      occurrences: 1,
      detail: d.detail,
      fingerprint: d.fingerprint,
      createdAtNs: nowNs,
      status: resolved ? "resolved" : "open",
      resolvedBy: resolved ? IMPORT_ACTOR : null,
      resolvedAtNs: resolved ? nowNs : null,
    },
  };
}
