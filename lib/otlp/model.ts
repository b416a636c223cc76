// The decoded form of an OTLP ExportTraceServiceRequest (opentelemetry-proto
// collector/trace/v1), the same whether it arrived as protobuf or as OTLP/JSON: only what
// SightDesk reads (links, trace state, dropped counts and flags are skipped).

/** An attribute value (AnyValue): int64 values are numbers (rounded beyond 2^53), bytes base64. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export type OtlpEvent = { timeNs: bigint; name: string; attributes: Attributes };

/** Status codes of a span (opentelemetry.proto.trace.v1.Status.StatusCode). */
export const STATUS_OK = 1;
export const STATUS_ERROR = 2;

export type OtlpSpan = {
  /** lowercase hex: 32 digits for a trace id, 16 for a span id ("" when absent) */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  events: OtlpEvent[];
  status: { code: number; message: string };
};

export type OtlpScopeSpans = { scope: { name: string; version: string }; spans: OtlpSpan[] };
export type OtlpResourceSpans = { resource: Attributes; scopeSpans: OtlpScopeSpans[] };
export type OtlpTraceRequest = { resourceSpans: OtlpResourceSpans[] };

/** A body that is not an OTLP trace export (the route answers 400). */
export class OtlpDecodeError extends Error {}

/**
 * Most messages (spans, events, attributes, values, …) one export may hold, in protobuf or JSON.
 * An SDK's batch of 512 chat spans with their messages holds about 40,000; decoded, each costs
 * a JavaScript object of a few hundred bytes, and an empty one is 2 bytes of protobuf or 3 of
 * JSON: 10 MiB of empty spans decoded to 3–5 million objects, 1.6–3 GB and 7–20 s of CPU.
 */
export const MAX_EXPORT_MESSAGES = 500_000;

export const tooManyMessages = (what: string) =>
  new OtlpDecodeError(`the export holds more than ${MAX_EXPORT_MESSAGES.toLocaleString("en")} ${what} (spans, events, attributes, values); send smaller batches`);

export const newAttributes = (): Attributes => Object.create(null) as Attributes;
