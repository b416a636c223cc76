// The pass-through (SPEC §2.6): one agent request goes upstream and its answer comes back,
// chunk by chunk as it arrives, both ways, while ExchangeRecorder copies the bytes. Used by the
// CLI proxy (a Node http server) and the server-mounted route (a Next route handler); each
// gives a ClientSink that writes to its own kind of response.
//
// Failures are answered, and recorded, as what they were: no connection to the upstream → 502,
// no response headers within the timeout → 504 (both JSON, the exchange with its `error`); the
// agent hanging up → the upstream request aborted, recorded `cancelled`; the upstream cutting
// the stream → the agent's connection cut the same way, recorded as far as it came (no error
// text is added: the server judges what arrived, e.g. a stream without its terminal event); the
// upstream going silent mid-answer for the idle timeout → the upstream aborted, the agent's
// connection cut as for a cut stream, recorded with the timeout as its `error` (network_timeout).
//
// The recorded exchange is built after the agent's answer has gone out (the next turn of the
// event loop): building and serializing it never sits between two chunks of anyone's answer.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { nowNs } from "../domain/time";
import { ExchangeRecorder, type ExchangeEnd, type ExchangeStart, type RecordedExchange } from "./exchange";
import { clientResponseHeaders, framedRequestHeaders, pairsFromRaw, upstreamRequestHeaders } from "./headers";

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 600_000;
/** Most time between two chunks of an answer (a reasoning model can think for minutes between them). */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;
const IDLE_TICKS = 4;

/** Where the agent's answer goes. `write` returns false when the agent reads slower than the upstream sends. */
export interface ClientSink {
  head(status: number, headers: [string, string][]): void;
  write(chunk: Buffer): boolean;
  onDrain(cb: () => void): void;
  end(): void;
  /** cut the agent's connection (the upstream cut its stream) */
  abort(): void;
}

export type ForwardOptions = {
  method: string;
  target: URL;
  /** the agent's request headers, in order */
  headers: [string, string][];
  body: Readable | null;
  /** aborted when the agent hangs up */
  signal: AbortSignal;
  origin?: ExchangeStart["origin"];
  /** ms to wait for the upstream's response headers (504 after) */
  timeoutMs?: number;
  /** ms the upstream may stay silent once it has answered (the answer is cut after) */
  idleTimeoutMs?: number;
  /** pins the upstream's address (the server's outbound policy) */
  lookup?: LookupFunction;
  /** called once, after the agent's answer has ended, with the recorded exchange */
  recorded: (x: RecordedExchange) => void;
  /** a redirect's Location as the agent must follow it to stay on the proxy (routes.ts proxiedLocation) */
  relocate?: (location: string) => string;
};

const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 }),
};

const tuned = new WeakSet<object>();
/** Small writes (SSE events) go out at once: no Nagle delay, set once per pooled socket. */
function noDelay(socket: import("node:net").Socket): void {
  if (tuned.has(socket)) return;
  tuned.add(socket);
  socket.setNoDelay(true);
}

const NO_BODY_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE"]);

function errorCode(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err?.code ?? err?.name ?? "error";
}

/** The JSON body of an answer the proxy gives itself (not the upstream's), in the providers' error shape. */
export const proxyErrorBody = (type: string, message: string): string => JSON.stringify({ error: { type, message, source: "sightdesk-proxy" } });

function jsonError(sink: ClientSink, status: number, type: string, message: string): void {
  const body = Buffer.from(proxyErrorBody(type, message));
  sink.head(status, [["content-type", "application/json"], ["content-length", String(body.length)]]);
  sink.write(body);
  sink.end();
}

/** Forwards one request; resolves when the exchange is over (the agent's answer ended or was cut). */
export function forward(opts: ForwardOptions, sink: ClientSink): Promise<void> {
  const rec = new ExchangeRecorder({ method: opts.method, url: opts.target, requestHeaders: opts.headers, origin: opts.origin });
  const timeoutMs = opts.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const idleMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const secure = opts.target.protocol === "https:";
  return new Promise<void>((resolve) => {
    let done = false;
    let answered = false; // the agent has been sent a status line
    let idle: NodeJS.Timeout | null = null;
    const finish = (end: ExchangeEnd) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (idle) clearInterval(idle);
      opts.signal.removeEventListener("abort", onAbort);
      const endNs = nowNs();
      setImmediate(() => {
        try {
          opts.recorded(rec.capture({ ...end, endNs }));
        } finally {
          resolve();
        }
      });
    };
    // a GET/DELETE/OPTIONS/HEAD sends a body only when the agent framed one
    const sendsBody = !!opts.body && !(NO_BODY_METHODS.has(opts.method.toUpperCase()) && !opts.headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k)));
    const headers = framedRequestHeaders(upstreamRequestHeaders(opts.headers, opts.target.host), sendsBody);
    const upstream = (secure ? https : http).request(opts.target, {
      method: opts.method,
      headers: headers as unknown as http.OutgoingHttpHeaders,
      agent: agents[secure ? "https:" : "http:"],
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    });
    upstream.on("socket", noDelay);
    const timer = setTimeout(() => {
      if (answered) return;
      upstream.destroy(Object.assign(new Error(`upstream timed out after ${timeoutMs} ms without a response`), { code: "ETIMEDOUT_PROXY" }));
    }, timeoutMs);

    const onAbort = () => {
      upstream.destroy();
      if (opts.body && !opts.body.destroyed) opts.body.resume();
      finish({ cancelled: true });
    };
    if (opts.signal.aborted) return onAbort();
    opts.signal.addEventListener("abort", onAbort, { once: true });

    upstream.on("error", (e) => {
      if (done) return;
      if (answered) {
        // the upstream cut its answer mid-way: cut the agent's the same way
        // (no error text: what arrived shows it, e.g. a stream without its terminal event)
        sink.abort();
        return finish({});
      }
      answered = true;
      if (errorCode(e) === "ETIMEDOUT_PROXY") {
        jsonError(sink, 504, "upstream_timeout", `sightdesk proxy: ${opts.target.host} did not answer within ${timeoutMs} ms`);
        return finish({ error: (e as Error).message });
      }
      jsonError(sink, 502, "upstream_unreachable", `sightdesk proxy: cannot reach ${opts.target.host} (${errorCode(e)})`);
      finish({ error: `upstream unreachable: ${errorCode(e)} ${(e as Error).message}`.trim() });
    });

    upstream.on("response", (res) => {
      answered = true;
      clearTimeout(timer);
      const pairs = pairsFromRaw(res.rawHeaders);
      rec.responseHead(res.statusCode ?? 502, pairs);
      const relocate = opts.relocate;
      const toClient = clientResponseHeaders(pairs);
      sink.head(res.statusCode ?? 502, relocate ? toClient.map(([k, v]) => [k, k.toLowerCase() === "location" ? relocate(v) : v]) : toClient);
      let paused = false;
      // Silent for too long mid-answer: cut both ends, recorded with the timeout as its error
      // (not while the agent is the slow one: then the upstream is paused, not silent). A
      // watchdog ticking at a quarter of the timeout, so that a chunk costs a counter, not a
      // timer reset; it cuts after between 1 and 1.25 times the timeout of silence.
      let heard = 0;
      let silentTicks = 0;
      idle = setInterval(() => {
        if (done) return;
        if (heard || paused) {
          heard = 0;
          silentTicks = 0;
          return;
        }
        if (++silentTicks < IDLE_TICKS) return;
        sink.abort();
        finish({ error: `upstream timed out mid-answer: no data for ${idleMs} ms` });
        upstream.destroy();
      }, idleMs / IDLE_TICKS);
      res.on("data", (chunk: Buffer) => {
        heard++;
        rec.responseChunk(chunk);
        if (!sink.write(chunk) && !paused) {
          paused = true;
          res.pause();
          sink.onDrain(() => {
            paused = false;
            res.resume();
          });
        }
      });
      res.on("end", () => {
        if (done) return;
        sink.end();
        finish({});
      });
      res.on("error", () => undefined); // reported by "close" below
      res.on("close", () => {
        if (done || res.complete) return;
        sink.abort();
        finish({}); // recorded as far as it came (sse_truncated for a stream)
      });
    });

    if (!opts.body || !sendsBody) {
      opts.body?.resume();
      upstream.end();
      return;
    }
    opts.body.on("data", (chunk: Buffer) => {
      rec.requestChunk(chunk);
      if (!upstream.write(chunk)) {
        opts.body!.pause();
        upstream.once("drain", () => opts.body!.resume());
      }
    });
    opts.body.on("end", () => upstream.end());
    opts.body.on("error", () => upstream.destroy());
  });
}
