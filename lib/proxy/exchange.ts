// One recorded exchange (SPEC §2.2) built while it passes through: the request and response
// bytes are copied as they go by, up to a cap, and turned into the raw-exchange JSON the
// server's adapters normalize. Headers and URL are recorded without credentials (headers.ts).
//
// The cap: at most RECORD_CAP (3 MiB) bytes of request body and of response body are kept per
// exchange. Past it, a streamed (SSE) response keeps its first bytes and its last TAIL_BYTES
// (whole events from there on), so its terminal event and usage are still seen; any other body
// keeps nothing (an unreadable half of a JSON body would be judged invalid, a failure the
// provider never made). Either way `recording_truncated` says how many bytes were left out.
import crypto from "node:crypto";
import zlib from "node:zlib";
import type { CallOrigin } from "../domain/calls";
import { nowNs } from "../domain/time";
import { headerValue, recordedHeaders, recordedUrl } from "./headers";

export const RECORD_CAP = 3 * 1024 * 1024; // request and response each: an exchange stays under the server's 10 MiB body limit
const TAIL_BYTES = 256 * 1024;
const EMPTY = new Uint8Array(0);

/** The raw exchange as sent to `POST /api/ingest/http` (nanoseconds as digit strings). */
export type WireExchange = Omit<CallOrigin, "call_id"> & {
  call_id: string;
  start_ns: string;
  end_ns: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response: { status: number | null; headers: Record<string, string>; body?: string | null; sse?: string } | null;
  error?: string;
  cancelled?: boolean;
  /** bytes the proxy did not record (over its cap), kept with the call */
  recording_truncated?: number;
};

/** A call id made at capture, so a re-sent exchange is the same call (idempotent). */
export const newCallId = (): string => `px-${crypto.randomUUID()}`;

/**
 * Bytes kept up to a cap: the head, copied into one growing buffer, and optionally a rolling
 * tail. The head does not keep the chunks themselves: held until the exchange ends, hundreds of
 * them per stream survived into V8's old generation, and the collector's pauses stalled every
 * stream the proxy was forwarding.
 */
class Capture {
  private buf = EMPTY;
  private used = 0;
  readonly tail: Buffer[] = [];
  tailBytes = 0;
  dropped = 0;
  constructor(private readonly cap: number, private readonly keepTail: boolean) {}
  push(chunk: Buffer): void {
    const room = this.cap - this.used;
    if (room > 0) {
      const take = Math.min(room, chunk.length);
      this.grow(this.used + take);
      this.buf.set(take === chunk.length ? chunk : chunk.subarray(0, take), this.used);
      this.used += take;
      if (take === chunk.length) return;
      chunk = chunk.subarray(take);
    }
    if (!this.keepTail) {
      this.dropped += chunk.length;
      return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0].length >= TAIL_BYTES) {
      this.dropped += this.tail[0].length;
      this.tailBytes -= this.tail.shift()!.length;
    }
  }
  private grow(size: number): void {
    if (size <= this.buf.length) return;
    let next = Math.max(16 * 1024, this.buf.length * 2);
    while (next < size) next *= 2;
    const bigger = new Uint8Array(Math.min(next, Math.max(size, this.cap)));
    bigger.set(this.buf.subarray(0, this.used));
    this.buf = bigger;
  }
  /** The head's bytes: a view of a buffer that only this capture uses (transferable). */
  get head(): Uint8Array {
    return this.buf.subarray(0, this.used);
  }
  get truncated(): boolean {
    return this.dropped > 0;
  }
}

/** Decoded bodies are kept up to this size too: a few compressed kilobytes can inflate to gigabytes. */
const DECODED_CAP = RECORD_CAP;
/** A compressed stream is decoded up to this, then kept as any stream over the cap: its head and last events. */
const SSE_DECODED_CAP = 8 * RECORD_CAP;

/**
 * Decoded body bytes (gzip, deflate, br); a cut compressed stream gives what could be decoded,
 * bytes that do not decode are kept as they came, and null means they decode to more than the cap.
 */
function decode(bytes: Buffer, encoding: string | undefined, cap = DECODED_CAP): Buffer | null {
  const enc = (encoding ?? "").trim().toLowerCase();
  if (!enc || enc === "identity" || !bytes.length) return bytes;
  const limit = { maxOutputLength: cap };
  try {
    if (enc === "gzip" || enc === "x-gzip") return zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH, ...limit });
    if (enc === "deflate") return zlib.inflateSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH, ...limit });
    if (enc === "br") return zlib.brotliDecompressSync(bytes, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH, ...limit });
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === "ERR_BUFFER_TOO_LARGE") return null;
    /* undecodable: recorded as it came */
  }
  return bytes;
}

const BOUNDARIES = ["\r\n\r\n", "\n\n", "\r\r"];

/** Where the first event boundary (a blank line: LF LF, CR LF CR LF or CR CR) of `text` ends, or -1. */
function firstEventEnd(text: Buffer): number {
  let end = -1;
  for (const b of BOUNDARIES) {
    const at = text.indexOf(b);
    if (at >= 0 && (end < 0 || at + b.length < end)) end = at + b.length;
  }
  return end;
}

/** Where the last event boundary of `text` ends, or -1. */
function lastEventEnd(text: Buffer): number {
  return Math.max(...BOUNDARIES.map((b) => {
    const at = text.lastIndexOf(b);
    return at < 0 ? -1 : at + b.length;
  }));
}

/**
 * The whole events of a stream's kept head and tail, joined: the head up to its last boundary,
 * the tail from its first (cut in bytes at boundaries, which are ASCII: never inside a character).
 */
function wholeEvents(head: Buffer, tail: Buffer): string {
  const headEnd = lastEventEnd(head);
  const tailStart = firstEventEnd(tail);
  return `${headEnd >= 0 ? head.subarray(0, headEnd).toString("utf8") : ""}${tailStart >= 0 ? tail.subarray(tailStart).toString("utf8") : ""}`;
}

/** A stream's text at most RECORD_CAP bytes long plus its last TAIL_BYTES: its first and last whole events. */
function streamEnds(text: string): string {
  if (Buffer.byteLength(text) <= RECORD_CAP + TAIL_BYTES) return text;
  const bytes = Buffer.from(text);
  return wholeEvents(bytes.subarray(0, RECORD_CAP), bytes.subarray(bytes.length - TAIL_BYTES));
}

/** How an exchange ended. */
export type ExchangeEnd = { error?: string; cancelled?: boolean; endNs?: bigint };

export type ExchangeStart = {
  method: string;
  /** the upstream URL (credentials are removed when recorded) */
  url: URL;
  requestHeaders: [string, string][];
  origin?: Omit<CallOrigin, "call_id">;
  callId?: string;
  cap?: number;
};

export class ExchangeRecorder {
  readonly callId: string;
  readonly startNs = nowNs();
  private readonly request: Capture;
  private response: Capture | null = null;
  private status = 0;
  private responseHeaders: [string, string][] = [];
  private sse = false;
  origin: Omit<CallOrigin, "call_id">;

  constructor(private readonly start: ExchangeStart) {
    this.callId = start.callId ?? newCallId();
    this.origin = { ...start.origin };
    this.request = new Capture(start.cap ?? RECORD_CAP, false);
  }

  requestChunk(chunk: Buffer): void {
    this.request.push(chunk);
  }

  responseHead(status: number, headers: [string, string][]): void {
    this.status = status;
    this.responseHeaders = headers;
    this.sse = (headerValue(headers, "content-type") ?? "").toLowerCase().includes("text/event-stream");
    const encoded = !!headerValue(headers, "content-encoding") && headerValue(headers, "content-encoding") !== "identity";
    this.response = new Capture(this.start.cap ?? RECORD_CAP, this.sse && !encoded);
  }

  responseChunk(chunk: Buffer): void {
    this.response?.push(chunk);
  }

  /**
   * The exchange as it ended, as bytes: `error` when it failed, `cancelled` when the agent hung
   * up; `endNs` when it ended earlier than now (the forwarder records after the agent's answer
   * has gone out). Cheap on purpose: the bodies are copied once into buffers of their own (no
   * decoding, no strings on the forwarding thread's heap), so the CLI proxy can hand them to its
   * sender thread without a copy; `wireExchange` makes the JSON record of them.
   */
  capture(end: ExchangeEnd = {}): RecordedExchange {
    const r = this.response;
    return {
      call_id: this.callId,
      ...this.origin,
      start_ns: this.startNs.toString(),
      end_ns: (end.endNs ?? nowNs()).toString(),
      method: this.start.method,
      url: recordedUrl(this.start.url),
      requestHeaders: recordedHeaders(this.start.requestHeaders),
      requestEncoding: headerValue(this.start.requestHeaders, "content-encoding"),
      requestBody: this.request.truncated ? EMPTY : this.request.head,
      requestDropped: this.request.dropped,
      response: r
        ? {
            status: this.status,
            headers: recordedHeaders(this.responseHeaders),
            encoding: headerValue(this.responseHeaders, "content-encoding"),
            sse: this.sse,
            head: r.head,
            tail: ownedCopy(r.tail),
            dropped: r.dropped,
          }
        : null,
      ...(end.error ? { error: end.error } : {}),
      ...(end.cancelled ? { cancelled: true } : {}),
    };
  }

  /** The exchange's JSON record (see `capture`). */
  finish(end: ExchangeEnd = {}): WireExchange {
    return wireExchange(this.capture(end));
  }
}

/** The chunks' bytes in one buffer that owns its memory (transferable to another thread). */
function ownedCopy(chunks: Buffer[]): Uint8Array {
  let size = 0;
  for (const c of chunks) size += c.length;
  if (!size) return EMPTY;
  const out = new Uint8Array(new ArrayBuffer(size));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** An exchange as `ExchangeRecorder.capture` took it: credentials already removed, bodies as bytes. */
export type RecordedExchange = Omit<CallOrigin, "call_id"> & {
  call_id: string;
  start_ns: string;
  end_ns: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestEncoding?: string;
  requestBody: Uint8Array;
  requestDropped: number;
  response: { status: number; headers: Record<string, string>; encoding?: string; sse: boolean; head: Uint8Array; tail: Uint8Array; dropped: number } | null;
  error?: string;
  cancelled?: boolean;
};

/** The buffers a recorded exchange holds, to transfer (not copy) to another thread. */
export function transferables(x: RecordedExchange): ArrayBuffer[] {
  const views = [x.requestBody, x.response?.head, x.response?.tail].filter((v): v is Uint8Array => !!v && v.byteLength > 0);
  return views.map((v) => v.buffer as ArrayBuffer);
}

const bytes = (v: Uint8Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** The origin's texts at most as long as ingest takes them (one over-long header must not lose a batch). */
function clippedOrigin(origin: Omit<CallOrigin, "call_id">): Omit<CallOrigin, "call_id"> {
  const clip = (v: string | null | undefined, max: number) => (typeof v === "string" && v.length > max ? v.slice(0, max) : v);
  const out = { ...origin };
  for (const key of ["agent_name", "process_name", "host"] as const) if (key in out) out[key] = clip(out[key], 256);
  for (const key of ["session_id", "conversation_id", "turn_id"] as const) if (key in out) out[key] = clip(out[key], 512);
  return out;
}

/** The raw-exchange JSON of a recorded exchange: bodies decoded (gzip, deflate, br) and read as UTF-8. */
export function wireExchange(x: RecordedExchange): WireExchange {
  const { method, url, requestHeaders, requestEncoding, requestBody, requestDropped, response: r, error, cancelled, call_id, start_ns, end_ns, ...origin } = x;
  let truncated = requestDropped;
  const request = requestDropped ? null : decode(bytes(requestBody), requestEncoding);
  if (!request) truncated += requestBody.byteLength;
  const out: WireExchange = {
    call_id,
    ...clippedOrigin(origin),
    start_ns,
    end_ns,
    request: { method, url, headers: requestHeaders, body: request ? request.toString("utf8") : "" },
    response: null,
  };
  let upstreamError: string | undefined;
  if (r) {
    truncated += r.dropped;
    const decoded = decode(bytes(r.head), r.encoding, r.sse ? SSE_DECODED_CAP : DECODED_CAP);
    if (!decoded) truncated += r.head.byteLength;
    const body = decoded ? decoded.toString("utf8") : "";
    // ingest takes HTTP statuses only: anything else is recorded as the upstream's failure
    const status = r.status >= 100 && r.status <= 599 ? r.status : null;
    if (status === null) upstreamError = `upstream answered with status ${r.status}`;
    if (r.sse) {
      let text = body;
      if (!r.dropped && r.tail.length) text = Buffer.concat([bytes(r.head), bytes(r.tail)]).toString("utf8"); // contiguous
      else if (r.dropped) text = wholeEvents(decoded ?? Buffer.alloc(0), bytes(r.tail));
      // a compressed stream can decode past the cap: kept as an uncompressed one would be
      const kept = streamEnds(text);
      if (kept.length < text.length) truncated += Buffer.byteLength(text) - Buffer.byteLength(kept);
      out.response = { status, headers: r.headers, sse: kept };
    } else {
      out.response = { status, headers: r.headers, body: r.dropped || r.tail.length || !decoded ? null : body };
    }
  }
  if (error ?? upstreamError) out.error = error ?? upstreamError;
  if (cancelled) out.cancelled = true;
  if (truncated) out.recording_truncated = truncated;
  return out;
}
