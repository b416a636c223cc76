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

/** The raw exchange as sent to `POST /api/ingest/http` (nanoseconds as digit strings). */
export type WireExchange = Omit<CallOrigin, "call_id"> & {
  call_id: string;
  start_ns: string;
  end_ns: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response: { status: number; headers: Record<string, string>; body?: string | null; sse?: string } | null;
  error?: string;
  cancelled?: boolean;
  /** bytes the proxy did not record (over its cap), kept with the call */
  recording_truncated?: number;
};

/** A call id made at capture, so a re-sent exchange is the same call (idempotent). */
export const newCallId = (): string => `px-${crypto.randomUUID()}`;

/** Bytes kept up to a cap: the head, and optionally a rolling tail. */
class Capture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  tailBytes = 0;
  dropped = 0;
  constructor(private readonly cap: number, private readonly keepTail: boolean) {}
  push(chunk: Buffer): void {
    const room = this.cap - this.headBytes;
    if (room > 0) {
      const take = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.head.push(take);
      this.headBytes += take.length;
      if (take.length === chunk.length) return;
      chunk = chunk.subarray(take.length);
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
  get truncated(): boolean {
    return this.dropped > 0;
  }
  headBuffer(): Buffer {
    return Buffer.concat(this.head);
  }
  tailBuffer(): Buffer {
    return Buffer.concat(this.tail);
  }
}

/** Decoded body bytes (gzip, deflate, br); a cut compressed stream gives what could be decoded. */
function decode(bytes: Buffer, encoding: string | undefined): Buffer {
  const enc = (encoding ?? "").trim().toLowerCase();
  if (!enc || enc === "identity" || !bytes.length) return bytes;
  try {
    if (enc === "gzip" || enc === "x-gzip") return zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    if (enc === "deflate") return zlib.inflateSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    if (enc === "br") return zlib.brotliDecompressSync(bytes, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  } catch {
    /* undecodable: recorded as it came */
  }
  return bytes;
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
   * The exchange as it ended: `error` when it failed, `cancelled` when the agent hung up;
   * `endNs` when it ended earlier than now (the forwarder builds the record after the agent's
   * answer has gone out).
   */
  finish(end: ExchangeEnd = {}): WireExchange {
    const reqBytes = decode(this.request.headBuffer(), headerValue(this.start.requestHeaders, "content-encoding"));
    const out: WireExchange = {
      call_id: this.callId,
      ...this.origin,
      start_ns: this.startNs.toString(),
      end_ns: (end.endNs ?? nowNs()).toString(),
      request: {
        method: this.start.method,
        url: recordedUrl(this.start.url),
        headers: recordedHeaders(this.start.requestHeaders),
        body: this.request.truncated ? "" : reqBytes.toString("utf8"),
      },
      response: null,
    };
    let truncated = this.request.dropped;
    if (this.response) {
      const headers = recordedHeaders(this.responseHeaders);
      const r = this.response;
      truncated += r.dropped;
      const body = decode(r.headBuffer(), headerValue(this.responseHeaders, "content-encoding")).toString("utf8");
      if (this.sse) {
        let text = body;
        if (!r.truncated && r.tailBytes) text = Buffer.concat([r.headBuffer(), r.tailBuffer()]).toString("utf8"); // contiguous
        else if (r.truncated) {
          const tail = r.tailBuffer().toString("utf8");
          const boundary = tail.indexOf("\n\n");
          const headEnd = body.lastIndexOf("\n\n");
          text = `${headEnd >= 0 ? body.slice(0, headEnd + 2) : ""}${boundary >= 0 ? tail.slice(boundary + 2) : ""}`;
        }
        out.response = { status: this.status, headers, sse: text };
      } else {
        out.response = { status: this.status, headers, body: r.truncated || r.tailBytes ? null : body };
      }
    }
    if (end.error) out.error = end.error;
    if (end.cancelled) out.cancelled = true;
    if (truncated) out.recording_truncated = truncated;
    return out;
  }
}
