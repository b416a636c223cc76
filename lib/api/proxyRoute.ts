// The recording proxy served by the server itself (SPEC §2.6): `/proxy/openai/*`,
// `/proxy/anthropic/*` and `/proxy/NAME/*` for each `proxy.upstreams` entry. The agent adds
// `X-SightDesk-Token: <ingest token>` (checked like a bearer token with the ingest scope, never
// sent upstream). The upstream's address must pass the outbound policy (outbound.allow_private)
// and the connection is pinned to the checked address. The exchange is stored through the
// ingest path after the agent's answer has ended: storing never delays the agent. A client on
// this host is found by its connection (peer.ts, as the CLI proxy does), so its session is the
// real process.
import os from "node:os";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { LookupFunction } from "node:net";
import { requireScope } from "../auth/actor";
import { tokenActor } from "../auth/identity";
import { outboundPolicy } from "../config/outbound";
import { config } from "../config/load";
import { db } from "../db/client";
import { OutboundBlockedError, resolveOutbound } from "../net/pinned";
import { wireExchange, type WireExchange } from "../proxy/exchange";
import { forward, proxyErrorBody, type ClientSink } from "../proxy/forward";
import { connectionPeer, fromCaller, withPeer } from "../proxy/peer";
import { requestSocket, requestTarget } from "../proxy/servedRequest";
import { proxiedLocation, routeRequest, upstreamMap } from "../proxy/routes";
import { asksForWebSocket, WEBSOCKET_REFUSAL } from "../proxy/websocket";
import { ApiError } from "./errors";
import { prepareIngestBody, storePrepared } from "./ingest";
import { errorResponse } from "./route";

const NULL_BODY = new Set([101, 204, 205, 304]);
const PREFIX = "/proxy";
const FORWARDED = new Set(["x-forwarded-for", "x-forwarded-host", "x-forwarded-port", "x-forwarded-proto"]);

function proxyError(status: number, type: string, message: string): Response {
  return new Response(proxyErrorBody(type, message), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

let upstreamCache: { specs: string[]; map: ReturnType<typeof upstreamMap> } | null = null;
function upstreams() {
  const specs = config().proxy.upstreams;
  if (upstreamCache?.specs !== specs) upstreamCache = { specs, map: upstreamMap(specs) };
  return upstreamCache.map;
}

async function store(x: WireExchange): Promise<void> {
  try {
    await storePrepared(db(), prepareIngestBody("http", [x]), "proxy");
  } catch (e) {
    console.error(`[proxy] could not store exchange ${x.call_id}:`, (e as Error)?.message ?? e);
  }
}

/**
 * The upstream's headers with `no-transform` added to Cache-Control: the server compresses
 * responses it serves (Next's `compress`), which would change the bytes and hold SSE events back
 * in the compressor; `no-transform` is the documented way to keep a response as it is.
 */
export function untransformed(headers: [string, string][]): [string, string][] {
  const i = headers.findIndex(([k]) => k.toLowerCase() === "cache-control");
  if (i < 0) return [...headers, ["cache-control", "no-transform"]];
  if (/\bno-transform\b/i.test(headers[i][1])) return headers;
  const out = [...headers];
  out[i] = [headers[i][0], `${headers[i][1]}, no-transform`];
  return out;
}

/** What the agent's stream queues before the forwarder waits for it to read. */
const QUEUE_BYTES = 256 * 1024;
/** How long a cut answer waits for the agent to read what is queued. */
const CUT_WAIT_MS = 10_000;

/**
 * A ReadableStream the forwarder writes into, and the Response around it once the status is
 * known. As in the CLI proxy, the first bytes go at once and the chunks that arrive after them in
 * one turn of the event loop go as one, at the end of that turn (one write to the agent, not one
 * per event).
 */
function webSink(onCancel: () => void): { sink: ClientSink; response: Promise<Response> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let drains: (() => void)[] = [];
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  let turnOpen = false;
  let started = false;
  const enqueue = (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  const endOfTurn = () => {
    turnOpen = false;
    if (!gathered.length) return;
    const bytes = gathered.length === 1 ? gathered[0] : Buffer.concat(gathered, gatheredBytes);
    gathered = [];
    gatheredBytes = 0;
    if (!closed) enqueue(bytes);
  };
  let resolve!: (r: Response) => void;
  const response = new Promise<Response>((r) => (resolve = r));
  let closed = false;
  // the upstream cut its answer: the agent's is cut once what arrived has been read from the queue
  // (erroring the stream at once would drop it), or after CUT_WAIT_MS when the agent reads no more
  let cutting: ReturnType<typeof setTimeout> | null = null;
  const cut = () => {
    if (cutting) clearTimeout(cutting);
    controller.error(new Error("upstream closed the connection before the response ended"));
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: () => {
        if (cutting && (controller.desiredSize ?? 0) >= QUEUE_BYTES) return cut();
        const d = drains;
        drains = [];
        for (const cb of d) cb();
      },
      cancel: () => {
        closed = true;
        if (cutting) clearTimeout(cutting);
        onCancel();
      },
    },
    { highWaterMark: QUEUE_BYTES, size: (chunk) => chunk.byteLength },
  );
  const sink: ClientSink = {
    head(status, headers) {
      if (status < 200 || status > 599) {
        // a web Response carries 200–599 only (the exchange is recorded with the upstream's error)
        closed = true;
        resolve(proxyError(502, "upstream_error", `sightdesk proxy: the upstream answered with status ${status}, which cannot be passed on`));
      } else if (NULL_BODY.has(status)) {
        closed = true;
        resolve(new Response(null, { status, headers: untransformed(headers) }));
      } else {
        resolve(new Response(stream, { status, headers: untransformed(headers) }));
        // Next sends the status and headers with the body's first chunk: an empty one sends them
        // now, not when the first byte comes (a model may think for minutes before it)
        controller.enqueue(new Uint8Array(0));
      }
    },
    write(chunk) {
      if (closed) return true;
      if (!started) {
        started = true;
        enqueue(chunk); // the first bytes at once
        return (controller.desiredSize ?? 1) > 0;
      }
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (!turnOpen) {
        turnOpen = true;
        setImmediate(endOfTurn);
      }
      return (controller.desiredSize ?? 1) - gatheredBytes > 0;
    },
    onDrain: (cb) => void drains.push(cb),
    end() {
      if (closed) return;
      endOfTurn();
      closed = true;
      controller.close();
    },
    abort() {
      if (closed) return;
      endOfTurn();
      closed = true;
      if ((controller.desiredSize ?? 0) >= QUEUE_BYTES) return cut();
      cutting = setTimeout(cut, CUT_WAIT_MS);
    },
  };
  return { sink, response };
}

/** The route handler of app/proxy/[...path]/route.ts (every method). */
export async function proxyRequest(req: Request): Promise<Response> {
  try {
    const token = req.headers.get("x-sightdesk-token")?.trim();
    if (!token) throw new ApiError(401, "Missing token: send X-SightDesk-Token: <ingest token>");
    await requireScope(await tokenActor(db(), token), "ingest");
  } catch (e) {
    return errorResponse(e);
  }
  if (asksForWebSocket(req.headers.get("upgrade"))) return proxyError(501, "not_supported", WEBSOCKET_REFUSAL);
  const url = new URL(req.url);
  // the path as Next resolved and routed it (dot segments gone); the query as the agent sent it,
  // where it is known (Next writes a query anew)
  const sent = requestTarget();
  const query = sent?.startsWith(`${PREFIX}/`) && sent.includes("?") ? sent.slice(sent.indexOf("?")) : url.search;
  const route = routeRequest(url.pathname.slice(PREFIX.length) + query, upstreams());
  if (!route) return proxyError(404, "not_found", `sightdesk proxy: no upstream for ${url.pathname}; routes: ${[...upstreams().keys()].map((n) => `${PREFIX}/${n}/*`).join(", ")}`);
  let lookup: LookupFunction;
  try {
    const target = await resolveOutbound(route.url, outboundPolicy());
    lookup = (_host, options, cb) => {
      const callback = cb as (err: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;
      if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
  } catch (e) {
    if (e instanceof OutboundBlockedError) return proxyError(502, "upstream_refused", `sightdesk proxy: refused: ${e.message}`);
    return errorResponse(e);
  }
  if (req.signal?.aborted) return new Response(null, { status: 499 }); // the agent hung up during the checks
  const abort = new AbortController();
  const cancel = () => abort.abort();
  const { sink, response } = webSink(cancel);
  // the agent hung up: the upstream request stops, and the handler returns even without a head
  const hungUp = new Promise<Response>((resolve) =>
    req.signal?.addEventListener("abort", () => (cancel(), resolve(new Response(null, { status: 499 }))), { once: true }),
  );
  const agent = req.headers.get("x-sightdesk-agent")?.trim() || null;
  const session = req.headers.get("x-sightdesk-session")?.trim() || null;
  // a client on this host: its process, as the CLI proxy finds it (once per connection)
  const socket = requestSocket();
  const peer = socket ? connectionPeer(socket) : null;
  void forward(
    {
      method: req.method,
      target: route.url,
      // Next adds X-Forwarded-* to every request it serves; they would tell the provider where
      // SightDesk runs and who called it, so they are not passed on (the agent's own headers are).
      // Next also drops Content-Encoding from a route's answer (it takes the body for one fetch
      // decoded already): a compressed answer would reach the agent undeclared, and unreadable.
      // So the upstream is asked for the answer as it is (OpenAI's API gzips JSON otherwise).
      headers: [...[...req.headers.entries()].filter(([k]) => !FORWARDED.has(k) && k !== "accept-encoding"), ["accept-encoding", "identity"]],
      body: req.body ? Readable.fromWeb(req.body as unknown as NodeReadableStream) : null,
      signal: abort.signal,
      lookup,
      origin: { agent_name: agent, session_id: session },
      relocate: (location) => proxiedLocation(location, route.url, upstreams(), route.name, PREFIX),
      recorded: (x) => {
        if (!peer) return void store(wireExchange(x));
        withPeer(peer, (p) => void store(wireExchange(p ? { ...fromCaller(x, p), host: os.hostname() } : x)));
      },
    },
    sink,
  );
  return Promise.race([response, hungUp]);
}
