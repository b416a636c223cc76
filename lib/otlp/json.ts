// OTLP/JSON (the protobuf JSON mapping with the OTLP rules: lowerCamelCase keys, trace and span
// ids as hex, enums as integers, 64-bit integers as strings or numbers). snake_case keys are
// read too, as some senders use the proto field names.
import { JsonTooManyValuesError, parseJsonBounded } from "../json";
import { MAX_EXPORT_MESSAGES, newAttributes, OtlpDecodeError, tooManyMessages, type Attributes, type AttrValue, type OtlpEvent, type OtlpResourceSpans, type OtlpScopeSpans, type OtlpSpan, type OtlpTraceRequest } from "./model";

type Obj = Record<string, unknown>;

/**
 * Long integers of the *UnixNano keys are quoted before parsing, so JSON.parse keeps them exact
 * (at most 20 digits: a longer run is no time, and an open-ended one overflowed the regex stack).
 */
const LONG_NANOS = /("(?:startTimeUnixNano|endTimeUnixNano|timeUnixNano|start_time_unix_nano|end_time_unix_nano|time_unix_nano)"\s*:\s*)(\d{16,20})(?!\d)/g;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function get(o: Obj, camel: string, snake: string): unknown {
  return o[camel] ?? o[snake];
}

function list(o: Obj, camel: string, snake: string, what: string): unknown[] {
  const v = get(o, camel, snake);
  if (v == null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError(`${what}: expected an array`);
  return v;
}

function object(v: unknown, what: string): Obj {
  if (v == null) return {};
  if (!isObj(v)) throw new OtlpDecodeError(`${what}: expected an object`);
  return v;
}

function text(v: unknown, what: string): string {
  if (v == null) return "";
  if (typeof v !== "string") throw new OtlpDecodeError(`${what}: expected a string`);
  return v;
}

function nanos(v: unknown, what: string): bigint {
  if (v == null) return 0n;
  if ((typeof v === "string" && /^\d{1,20}$/.test(v)) || (typeof v === "number" && Number.isInteger(v) && v >= 0)) return BigInt(v);
  throw new OtlpDecodeError(`${what}: expected integer nanoseconds`);
}

function int(v: unknown, what: string): number {
  if (v == null) return 0;
  const n = typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n)) throw new OtlpDecodeError(`${what}: expected an integer`);
  return n;
}

// Protobuf's JSON mapping also writes enums by name; OTLP asks for integers, but accepts both.
const SPAN_KINDS = ["SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER", "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"];
const STATUS_CODES = ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];

/** An enum field: its integer, or the index of its name in `names`. */
function enumValue(v: unknown, names: string[], what: string): number {
  const named = typeof v === "string" ? names.indexOf(v) : -1;
  return named >= 0 ? named : int(v, what);
}

/** Ids are hex in OTLP/JSON; a base64 id (the plain protobuf JSON mapping) is read as well. */
function id(v: unknown, bytes: number, what: string): string {
  const s = text(v, what);
  if (!s || /^[0-9a-fA-F]*$/.test(s)) return s.toLowerCase();
  const decoded = Buffer.from(s, "base64");
  if (decoded.length !== bytes) throw new OtlpDecodeError(`${what}: expected hex`);
  return decoded.toString("hex");
}

function anyValue(v: unknown, depth: number): AttrValue {
  if (depth > 64) throw new OtlpDecodeError("attribute values nested too deep");
  if (!isObj(v)) return null;
  const s = get(v, "stringValue", "string_value");
  if (s !== undefined) return s == null ? null : String(s);
  const b = get(v, "boolValue", "bool_value");
  if (b !== undefined) return b === true || b === "true";
  const i = get(v, "intValue", "int_value");
  if (i !== undefined) return int(i, "intValue");
  const d = get(v, "doubleValue", "double_value");
  if (d !== undefined) return typeof d === "number" ? d : Number(d);
  const a = get(v, "arrayValue", "array_value");
  if (a !== undefined) return list(object(a, "arrayValue"), "values", "values", "arrayValue.values").map((x) => anyValue(x, depth + 1));
  const kv = get(v, "kvlistValue", "kvlist_value");
  if (kv !== undefined) return attributes(list(object(kv, "kvlistValue"), "values", "values", "kvlistValue.values"), depth + 1);
  const bytes = get(v, "bytesValue", "bytes_value");
  if (bytes !== undefined) return text(bytes, "bytesValue");
  return null;
}

function attributes(items: unknown[], depth = 0): Attributes {
  const out = newAttributes();
  for (const item of items) {
    const kv = object(item, "attribute");
    out[text(kv.key, "attribute key")] = anyValue(kv.value, depth);
  }
  return out;
}

function event(v: unknown): OtlpEvent {
  const e = object(v, "event");
  return { timeNs: nanos(get(e, "timeUnixNano", "time_unix_nano"), "timeUnixNano"), name: text(e.name, "event name"), attributes: attributes(list(e, "attributes", "attributes", "event attributes")) };
}

function span(v: unknown): OtlpSpan {
  const s = object(v, "span");
  const status = object(s.status, "status");
  return {
    traceId: id(get(s, "traceId", "trace_id"), 16, "traceId"),
    spanId: id(get(s, "spanId", "span_id"), 8, "spanId"),
    parentSpanId: id(get(s, "parentSpanId", "parent_span_id"), 8, "parentSpanId"),
    name: text(s.name, "name"),
    kind: enumValue(s.kind, SPAN_KINDS, "kind"),
    startNs: nanos(get(s, "startTimeUnixNano", "start_time_unix_nano"), "startTimeUnixNano"),
    endNs: nanos(get(s, "endTimeUnixNano", "end_time_unix_nano"), "endTimeUnixNano"),
    attributes: attributes(list(s, "attributes", "attributes", "span attributes")),
    events: list(s, "events", "events", "events").map(event),
    status: { code: enumValue(status.code, STATUS_CODES, "status.code"), message: text(status.message, "status.message") },
  };
}

function scopeSpans(v: unknown): OtlpScopeSpans {
  const o = object(v, "scopeSpans");
  const scope = object(o.scope, "scope");
  return { scope: { name: text(scope.name, "scope.name"), version: text(scope.version, "scope.version") }, spans: list(o, "spans", "spans", "spans").map(span) };
}

function resourceSpans(v: unknown): OtlpResourceSpans {
  const o = object(v, "resourceSpans");
  const resource = object(o.resource, "resource");
  return { resource: attributes(list(resource, "attributes", "attributes", "resource attributes")), scopeSpans: list(o, "scopeSpans", "scope_spans", "scopeSpans").map(scopeSpans) };
}

/** An ExportTraceServiceRequest in OTLP/JSON; OtlpDecodeError when the text is not one. */
export function decodeTraceRequestJson(body: string): OtlpTraceRequest {
  let parsed: unknown;
  try {
    parsed = parseJsonBounded(body.replace(LONG_NANOS, '$1"$2"'), { maxContainers: MAX_EXPORT_MESSAGES });
  } catch (e) {
    if (e instanceof JsonTooManyValuesError) throw tooManyMessages("JSON objects and arrays");
    throw new OtlpDecodeError(`malformed JSON: ${(e as Error).message}`);
  }
  if (!isObj(parsed)) throw new OtlpDecodeError("expected an ExportTraceServiceRequest object");
  return { resourceSpans: list(parsed, "resourceSpans", "resource_spans", "resourceSpans").map(resourceSpans) };
}

/** ExportTraceServiceResponse in OTLP/JSON. */
export function encodeTraceResponseJson(rejectedSpans: number, message: string): string {
  return rejectedSpans === 0 && !message ? "{}" : JSON.stringify({ partialSuccess: { rejectedSpans: String(rejectedSpans), errorMessage: message } });
}
