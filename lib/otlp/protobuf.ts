// OTLP protobuf, by hand: a reader for ExportTraceServiceRequest and writers for the two small
// answers (ExportTraceServiceResponse, google.rpc.Status). The messages are few and stable
// (opentelemetry-proto v1), and a direct reader is faster than a generic one: it skips what
// SightDesk does not read without building it. Field numbers are from
// opentelemetry/proto/{collector/trace,trace,common,resource}/v1/*.proto.
import { newAttributes, OtlpDecodeError, type Attributes, type AttrValue, type OtlpEvent, type OtlpResourceSpans, type OtlpScopeSpans, type OtlpSpan, type OtlpTraceRequest } from "./model";

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;
/** Nested messages deeper than this (AnyValue arrays in arrays …) are refused. */
const MAX_DEPTH = 64;

class Reader {
  private readonly view: DataView;
  pos = 0;
  constructor(readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private need(n: number, end: number): void {
    if (this.pos + n > end) throw new OtlpDecodeError("truncated protobuf message");
  }

  /** A varint up to 2^53 (lengths, tags, enums, int32); larger ones are rounded. */
  varint(end: number): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      this.need(1, end);
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw new OtlpDecodeError("malformed varint");
  }

  /** An int64 varint as a number (two's complement: negative values come as 10-byte varints). */
  int64(end: number): number {
    const start = this.pos;
    const n = this.varint(end);
    if (n < 2 ** 53) return n;
    let big = 0n;
    for (let i = this.pos - 1; i >= start; i--) big = (big << 7n) | BigInt(this.buf[i] & 0x7f);
    return Number(BigInt.asIntN(64, big));
  }

  fixed64(end: number): bigint {
    this.need(8, end);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  double(end: number): number {
    this.need(8, end);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** The end offset of a length-delimited field starting here. */
  len(end: number): number {
    const n = this.varint(end);
    this.need(n, end);
    return this.pos + n;
  }

  string(end: number): string {
    const stop = this.len(end);
    const s = this.buf.toString("utf8", this.pos, stop);
    this.pos = stop;
    return s;
  }

  hex(end: number): string {
    const stop = this.len(end);
    const s = this.buf.toString("hex", this.pos, stop);
    this.pos = stop;
    return s;
  }

  base64(end: number): string {
    const stop = this.len(end);
    const s = this.buf.toString("base64", this.pos, stop);
    this.pos = stop;
    return s;
  }

  skip(wire: number, end: number): void {
    if (wire === VARINT) this.varint(end);
    else if (wire === FIXED64) (this.need(8, end), (this.pos += 8));
    else if (wire === LEN) this.pos = this.len(end);
    else if (wire === FIXED32) (this.need(4, end), (this.pos += 4));
    else throw new OtlpDecodeError(`unsupported protobuf wire type ${wire}`);
  }
}

/** Calls `field(number, wire)` for each field of the message ending at `end`; it returns false to skip one. */
function fields(r: Reader, end: number, field: (n: number, wire: number) => boolean): void {
  while (r.pos < end) {
    const tag = r.varint(end);
    const n = Math.floor(tag / 8);
    const wire = tag & 7;
    if (n === 0) throw new OtlpDecodeError("protobuf field number 0");
    if (!field(n, wire)) r.skip(wire, end);
  }
  if (r.pos !== end) throw new OtlpDecodeError("protobuf message overruns its length");
}

function expect(wire: number, want: number, what: string): void {
  if (wire !== want) throw new OtlpDecodeError(`${what}: wrong protobuf wire type ${wire}`);
}

function anyValue(r: Reader, end: number, depth: number): AttrValue {
  if (depth > MAX_DEPTH) throw new OtlpDecodeError("attribute values nested too deep");
  let value: AttrValue = null;
  fields(r, end, (n, wire) => {
    switch (n) {
      case 1: expect(wire, LEN, "string_value"); value = r.string(end); return true;
      case 2: expect(wire, VARINT, "bool_value"); value = r.varint(end) !== 0; return true;
      case 3: expect(wire, VARINT, "int_value"); value = r.int64(end); return true;
      case 4: expect(wire, FIXED64, "double_value"); value = r.double(end); return true;
      case 5: {
        expect(wire, LEN, "array_value");
        const stop = r.len(end);
        const values: AttrValue[] = [];
        fields(r, stop, (m, w) => (m === 1 ? (expect(w, LEN, "values"), values.push(anyValue(r, r.len(stop), depth + 1)), true) : false));
        value = values;
        return true;
      }
      case 6: {
        expect(wire, LEN, "kvlist_value");
        const stop = r.len(end);
        const object = newAttributes();
        fields(r, stop, (m, w) => (m === 1 ? (expect(w, LEN, "values"), keyValue(r, r.len(stop), object, depth + 1), true) : false));
        value = object;
        return true;
      }
      case 7: expect(wire, LEN, "bytes_value"); value = r.base64(end); return true;
      default: return false;
    }
  });
  return value;
}

function keyValue(r: Reader, end: number, into: Attributes, depth: number): void {
  let key = "";
  let value: AttrValue = null;
  fields(r, end, (n, wire) => {
    if (n === 1) (expect(wire, LEN, "key"), (key = r.string(end)));
    else if (n === 2) (expect(wire, LEN, "value"), (value = anyValue(r, r.len(end), depth)));
    else return false;
    return true;
  });
  into[key] = value;
}

/** Repeated KeyValue field: reads one element into `into`. */
const attribute = (r: Reader, end: number, wire: number, into: Attributes) => (expect(wire, LEN, "attributes"), keyValue(r, r.len(end), into, 0), true);

function event(r: Reader, end: number): OtlpEvent {
  const e: OtlpEvent = { timeNs: 0n, name: "", attributes: newAttributes() };
  fields(r, end, (n, wire) => {
    if (n === 1) (expect(wire, FIXED64, "time_unix_nano"), (e.timeNs = r.fixed64(end)));
    else if (n === 2) (expect(wire, LEN, "name"), (e.name = r.string(end)));
    else if (n === 3) attribute(r, end, wire, e.attributes);
    else return false;
    return true;
  });
  return e;
}

function span(r: Reader, end: number): OtlpSpan {
  const s: OtlpSpan = {
    traceId: "", spanId: "", parentSpanId: "", name: "", kind: 0, startNs: 0n, endNs: 0n,
    attributes: newAttributes(), events: [], status: { code: 0, message: "" },
  };
  fields(r, end, (n, wire) => {
    switch (n) {
      case 1: expect(wire, LEN, "trace_id"); s.traceId = r.hex(end); return true;
      case 2: expect(wire, LEN, "span_id"); s.spanId = r.hex(end); return true;
      case 4: expect(wire, LEN, "parent_span_id"); s.parentSpanId = r.hex(end); return true;
      case 5: expect(wire, LEN, "name"); s.name = r.string(end); return true;
      case 6: expect(wire, VARINT, "kind"); s.kind = r.varint(end); return true;
      case 7: expect(wire, FIXED64, "start_time_unix_nano"); s.startNs = r.fixed64(end); return true;
      case 8: expect(wire, FIXED64, "end_time_unix_nano"); s.endNs = r.fixed64(end); return true;
      case 9: return attribute(r, end, wire, s.attributes);
      case 11: expect(wire, LEN, "events"); s.events.push(event(r, r.len(end))); return true;
      case 15: {
        expect(wire, LEN, "status");
        const stop = r.len(end);
        fields(r, stop, (m, w) => {
          if (m === 2) (expect(w, LEN, "status.message"), (s.status.message = r.string(stop)));
          else if (m === 3) (expect(w, VARINT, "status.code"), (s.status.code = r.varint(stop)));
          else return false;
          return true;
        });
        return true;
      }
      default: return false;
    }
  });
  return s;
}

function scopeSpans(r: Reader, end: number): OtlpScopeSpans {
  const out: OtlpScopeSpans = { scope: { name: "", version: "" }, spans: [] };
  fields(r, end, (n, wire) => {
    if (n === 1) {
      expect(wire, LEN, "scope");
      const stop = r.len(end);
      fields(r, stop, (m, w) => {
        if (m === 1) (expect(w, LEN, "scope.name"), (out.scope.name = r.string(stop)));
        else if (m === 2) (expect(w, LEN, "scope.version"), (out.scope.version = r.string(stop)));
        else return false;
        return true;
      });
    } else if (n === 2) (expect(wire, LEN, "spans"), out.spans.push(span(r, r.len(end))));
    else return false;
    return true;
  });
  return out;
}

function resourceSpans(r: Reader, end: number): OtlpResourceSpans {
  const out: OtlpResourceSpans = { resource: newAttributes(), scopeSpans: [] };
  fields(r, end, (n, wire) => {
    if (n === 1) {
      expect(wire, LEN, "resource");
      const stop = r.len(end);
      fields(r, stop, (m, w) => (m === 1 ? attribute(r, stop, w, out.resource) : false));
    } else if (n === 2) (expect(wire, LEN, "scope_spans"), out.scopeSpans.push(scopeSpans(r, r.len(end))));
    else return false;
    return true;
  });
  return out;
}

/** An ExportTraceServiceRequest in protobuf; OtlpDecodeError when the bytes are not one. */
export function decodeTraceRequestProtobuf(bytes: Uint8Array): OtlpTraceRequest {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const r = new Reader(buf);
  const request: OtlpTraceRequest = { resourceSpans: [] };
  try {
    fields(r, buf.length, (n, wire) => (n === 1 ? (expect(wire, LEN, "resource_spans"), request.resourceSpans.push(resourceSpans(r, r.len(buf.length))), true) : false));
  } catch (e) {
    if (e instanceof OtlpDecodeError) throw e;
    throw new OtlpDecodeError((e as Error).message);
  }
  return request;
}

// ── writing ──────────────────────────────────────────────────────────────────────────────

function varintBytes(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function lenField(n: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([...varintBytes(n * 8 + LEN), ...varintBytes(payload.length)]), payload]);
}

const varintField = (n: number, value: number): Buffer => (value === 0 ? Buffer.alloc(0) : Buffer.from([...varintBytes(n * 8 + VARINT), ...varintBytes(value)]));
const stringField = (n: number, value: string): Buffer => (value ? lenField(n, Buffer.from(value, "utf8")) : Buffer.alloc(0));

/** ExportTraceServiceResponse: empty, or with partial_success {rejected_spans, error_message}. */
export function encodeTraceResponseProtobuf(rejectedSpans: number, message: string): Buffer {
  if (rejectedSpans === 0 && !message) return Buffer.alloc(0);
  return lenField(1, Buffer.concat([varintField(1, rejectedSpans), stringField(2, message)]));
}

/** google.rpc.Status {code, message}: the body of an OTLP/HTTP error answer in protobuf. */
export function encodeStatusProtobuf(code: number, message: string): Buffer {
  return Buffer.concat([varintField(1, code), stringField(2, message)]);
}
