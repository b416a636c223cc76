// OTLP protobuf through protobufjs and the official opentelemetry-proto definitions (vendored
// in proto/, compiled once to the JSON descriptor proto/trace.json by scripts/otlp-descriptor.ts,
// so no .proto text is parsed at run time): ExportTraceServiceRequest → OtlpTraceRequest, and
// the two small answers (ExportTraceServiceResponse, google.rpc.Status).
// protobufjs decodes in one pass and refuses messages nested deeper than Reader.recursionLimit
// (100, protoc's default), so a hostile AnyValue nesting is a 400, never a stack overflow.
import { Field, Reader, Root, Type, util } from "protobufjs/light";
import { holdsMoreMessagesThan } from "./messageCount";
import { MAX_EXPORT_MESSAGES, newAttributes, OtlpDecodeError, tooManyMessages, type Attributes, type AttrValue, type OtlpTraceRequest } from "./model";
import descriptor from "./proto/trace.json";

// without long.js protobufjs reads 64-bit integers as doubles: nanoseconds would lose precision
if (!util.Long) throw new Error("protobufjs found no long.js: OTLP timestamps cannot be decoded exactly");

const root = Root.fromJSON(descriptor);
// google.rpc.Status (googleapis google/rpc/status.proto) less `details`, which is never sent
root.define("google.rpc").add(new Type("Status").add(new Field("code", 1, "int32")).add(new Field("message", 2, "string")));
const ExportTraceServiceRequest = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
const ExportTraceServiceResponse = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");
const Status = root.lookupType("google.rpc.Status");
root.resolveAll(); // every field knows its message type (messageCount.ts reads them)


// The decoded messages, as far as SightDesk reads them: absent fields read as their defaults
// (protobufjs puts those on the prototypes), absent message fields as null.
type Long64 = { low: number; high: number };
type PbAnyValue = {
  value?: "stringValue" | "boolValue" | "intValue" | "doubleValue" | "arrayValue" | "kvlistValue" | "bytesValue";
  stringValue: string; boolValue: boolean; intValue: Long64; doubleValue: number;
  arrayValue: { values: PbAnyValue[] }; kvlistValue: { values: PbKeyValue[] }; bytesValue: Buffer;
};
type PbKeyValue = { key: string; value: PbAnyValue | null };
type PbEvent = { timeUnixNano: Long64; name: string; attributes: PbKeyValue[] };
type PbSpan = {
  traceId: Buffer; spanId: Buffer; parentSpanId: Buffer; name: string; kind: number;
  startTimeUnixNano: Long64; endTimeUnixNano: Long64; attributes: PbKeyValue[]; events: PbEvent[];
  status: { code: number; message: string } | null;
};
type PbScopeSpans = { scope: { name: string; version: string } | null; spans: PbSpan[] };
type PbRequest = { resourceSpans: { resource: { attributes: PbKeyValue[] } | null; scopeSpans: PbScopeSpans[] }[] };

/** An int64 as a number (rounded beyond 2^53, as OTLP/JSON readers do). */
const int64 = (v: Long64): number => v.high * 2 ** 32 + (v.low >>> 0);
/** A fixed64 (unsigned) exactly. */
const uint64 = (v: Long64): bigint => ((v.high | v.low) === 0 ? 0n : (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0));
/** An id as lowercase hex ("" when absent). */
const hex = (id: Buffer): string => (id.length ? id.toString("hex") : "");

function anyValue(v: PbAnyValue | null): AttrValue {
  switch (v?.value) {
    case "stringValue": return v.stringValue;
    case "boolValue": return v.boolValue;
    case "intValue": return int64(v.intValue);
    case "doubleValue": return v.doubleValue;
    case "arrayValue": return v.arrayValue.values.map(anyValue);
    case "kvlistValue": return attributes(v.kvlistValue.values);
    case "bytesValue": return v.bytesValue.toString("base64");
    default: return null;
  }
}

function attributes(list: PbKeyValue[]): Attributes {
  const out = newAttributes();
  for (const kv of list) out[kv.key] = anyValue(kv.value);
  return out;
}

function toRequest(request: PbRequest): OtlpTraceRequest {
  return {
    resourceSpans: request.resourceSpans.map((rs) => ({
      resource: attributes(rs.resource?.attributes ?? []),
      scopeSpans: rs.scopeSpans.map((ss) => ({
        scope: { name: ss.scope?.name ?? "", version: ss.scope?.version ?? "" },
        spans: ss.spans.map((s) => ({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: s.kind,
          startNs: uint64(s.startTimeUnixNano),
          endNs: uint64(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          events: s.events.map((e) => ({ timeNs: uint64(e.timeUnixNano), name: e.name, attributes: attributes(e.attributes) })),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
        })),
      })),
    })),
  };
}

/** protobufjs's complaint about malformed bytes, as the 400's reason. */
function decodeError(e: unknown): OtlpDecodeError {
  const message = e instanceof Error ? e.message : String(e);
  if (message === "max depth exceeded") return new OtlpDecodeError(`protobuf messages nested more than ${Reader.recursionLimit} deep`);
  if (message.startsWith("index out of range")) return new OtlpDecodeError(`truncated protobuf message (a length runs past the end: ${message})`);
  return new OtlpDecodeError(`malformed protobuf: ${message}`);
}

/** `bytes` as a Buffer over the same memory (no copy). */
export const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** Whether protobuf bytes of an ExportTraceServiceRequest hold more than `limit` messages (spans, attributes, …), by one linear walk. */
export const exportHoldsMoreMessagesThan = (bytes: Uint8Array, limit: number): boolean => holdsMoreMessagesThan(bytes, ExportTraceServiceRequest, limit);

/** An ExportTraceServiceRequest in protobuf; OtlpDecodeError when the bytes are not one. */
export function decodeTraceRequestProtobuf(bytes: Uint8Array): OtlpTraceRequest {
  if (holdsMoreMessagesThan(bytes, ExportTraceServiceRequest, MAX_EXPORT_MESSAGES)) {
    throw tooManyMessages("protobuf messages");
  }
  let decoded: PbRequest;
  try {
    // from a Buffer, protobufjs reads strings and bytes with Node's native slices
    decoded = ExportTraceServiceRequest.decode(asBuffer(bytes)) as unknown as PbRequest;
  } catch (e) {
    throw decodeError(e);
  }
  return toRequest(decoded);
}

/** ExportTraceServiceResponse: empty, or with partial_success {rejected_spans, error_message}. */
export function encodeTraceResponseProtobuf(rejectedSpans: number, message: string): Buffer {
  if (rejectedSpans === 0 && !message) return Buffer.alloc(0);
  return asBuffer(ExportTraceServiceResponse.encode({ partialSuccess: { rejectedSpans, errorMessage: message } }).finish());
}

/** google.rpc.Status {code, message}: the body of an OTLP/HTTP error answer in protobuf. */
export function encodeStatusProtobuf(code: number, message: string): Buffer {
  return asBuffer(Status.encode({ code, message }).finish());
}
