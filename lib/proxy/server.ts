// The proxy as a Node http server (`sightdesk proxy`, SPEC §2.6): routes `/NAME/*` to its
// upstream, forwards (forward.ts), and hands each recorded exchange, with who sent it, to
// `onExchange` (the sender). The calling process of a loopback connection is looked up once
// per connection, beside the first upstream request (peer.ts).
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import type { RecordedExchange } from "./exchange";
import { DEFAULT_UPSTREAM_TIMEOUT_MS, forward, proxyErrorBody, type ClientSink } from "./forward";
import { headerValue, pairsFromRaw } from "./headers";
import { connectionPeer, fromCaller, withPeer } from "./peer";
import { proxiedLocation, routeRequest, type Upstreams } from "./routes";
import { asksForWebSocket, WEBSOCKET_REFUSAL } from "./websocket";

export type ProxyOptions = {
  host: string;
  port: number;
  upstreams: Upstreams;
  agentName?: string;
  timeoutMs?: number;
  /** ms the upstream may stay silent mid-answer */
  idleTimeoutMs?: number;
  /** look up the calling process of loopback clients (Linux); default on */
  peers?: boolean;
  onExchange: (x: RecordedExchange) => void;
};

/** How long a stopping proxy lets the answers in flight run on before it cuts them. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

export type RunningProxy = {
  url: string;
  server: http.Server;
  /**
   * Stops taking connections, lets the answers in flight end for up to `graceMs`, cuts the rest,
   * and resolves once every exchange has been handed to `onExchange` (a cut one as far as it came).
   */
  close: (graceMs?: number) => Promise<void>;
};

/**
 * The agent's answer on a Node response. The first bytes go out at once (with the headers);
 * the chunks that arrive after them in one turn of the event loop leave together, as one
 * buffer in one write, at the end of that turn (the check phase, before any wait for more
 * input): a stream of small events costs a write per turn, not three buffers per event in a
 * writev, and no event is held for the next one.
 */
function nodeSink(res: http.ServerResponse): ClientSink {
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  let turnOpen = false; // a write is scheduled for the end of this turn
  let drainWaiters: (() => void)[] = [];
  const wakeWhenDrained = () => {
    if (!drainWaiters.length) return;
    if (res.writableNeedDrain) return void res.once("drain", wakeWhenDrained);
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const cb of waiters) cb();
  };
  const takeGathered = (): Buffer | null => {
    if (!gathered.length) return null;
    const out = gathered.length === 1 ? gathered[0] : Buffer.concat(gathered, gatheredBytes);
    gathered = [];
    gatheredBytes = 0;
    return out;
  };
  const endOfTurn = () => {
    turnOpen = false;
    const bytes = takeGathered();
    if (bytes && !res.destroyed) res.write(bytes);
    wakeWhenDrained();
  };
  let replaced = false; // the upstream's status could not be passed on: a 502 went instead
  return {
    head(status, headers) {
      if (status < 100 || status > 999) {
        // outside what an HTTP/1.1 status line holds (Node's writeHead throws): the agent gets a
        // 502 that says so; the exchange is recorded with the upstream's error
        replaced = true;
        return proxyAnswer(res, 502, "upstream_error", `sightdesk proxy: the upstream answered with status ${status}, which cannot be passed on`);
      }
      res.writeHead(status, headers.flat());
      // The headers go with the first body bytes when those came with them; otherwise alone, at
      // once (an answer that takes a while to start still shows its status right away). Not by
      // `headersSent`: writeHead sets it before a byte has gone (and it kept the head back until
      // the first byte of the body); a flush after the head went writes nothing.
      setImmediate(() => {
        if (!res.destroyed && !res.writableEnded) res.flushHeaders();
      });
    },
    write(chunk) {
      if (replaced) return true;
      if (!turnOpen) {
        turnOpen = true;
        setImmediate(endOfTurn);
        if (!res.headersSent) return res.write(chunk); // the first bytes (and the headers) at once
      }
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      return !res.writableNeedDrain && gatheredBytes + res.writableLength < res.writableHighWaterMark;
    },
    onDrain(cb) {
      drainWaiters.push(cb);
      if (!turnOpen) wakeWhenDrained();
    },
    end() {
      if (replaced) return;
      const bytes = takeGathered();
      if (bytes) res.end(bytes);
      else res.end();
    },
    abort() {
      if (replaced) return;
      // what arrived goes out first: destroying the response would drop what is gathered or
      // still buffered; destroySoon sends it, then closes the connection (no chunked terminator)
      const bytes = takeGathered();
      if (res.destroyed) return;
      if (bytes) res.write(bytes);
      else if (!res.headersSent) res.flushHeaders(); // the agent sees the status, then the cut
      if (res.socket) res.socket.destroySoon();
      else res.destroy();
    },
  };
}

/** An answer of the proxy's own (not the upstream's), in the providers' JSON error shape. */
function proxyAnswer(res: http.ServerResponse, status: number, type: string, message: string): void {
  const body = proxyErrorBody(type, message);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function notFound(res: http.ServerResponse, path: string, upstreams: Upstreams): void {
  const routes = [...upstreams.keys()].map((n) => `/${n}/*`).join(", ");
  proxyAnswer(res, 404, "not_found", `sightdesk proxy: no upstream for ${path.split("?")[0]}; routes: ${routes}`);
}

export function startProxy(o: ProxyOptions): Promise<RunningProxy> {
  const hostName = os.hostname();
  const inFlight = new Set<Promise<void>>(); // forward()s not yet recorded
  const server = http.createServer({ noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
    try {
      handle(req, res);
    } catch (e) {
      // one request's failure answers that request; it never takes the proxy down
      console.error(`[proxy] ${req.method} ${req.url?.split("?")[0]}: ${(e as Error)?.message ?? e}`);
      if (res.headersSent) return void res.destroy();
      proxyAnswer(res, 500, "proxy_error", "sightdesk proxy: could not forward this request");
    }
  });
  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    // (No "upgrade" listener: with one, Node would send it every Upgrade request, h2c ones too,
    // which Java's HttpClient sends by default and which are ordinary requests here.)
    if (asksForWebSocket(req.headers.upgrade)) return proxyAnswer(res, 501, "not_supported", WEBSOCKET_REFUSAL);
    const route = routeRequest(req.url ?? "/", o.upstreams);
    if (!route) return notFound(res, req.url ?? "/", o.upstreams);
    const pairs = pairsFromRaw(req.rawHeaders);
    const peer = o.peers === false ? null : connectionPeer(req.socket);
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const agent = headerValue(pairs, "x-sightdesk-agent")?.trim() || o.agentName;
    const session = headerValue(pairs, "x-sightdesk-session")?.trim() || undefined;
    // handed over once the caller's process is known (up to a second after the answer): until then in flight too
    let handedOver: Promise<void> = Promise.resolve();
    const forwarded = forward(
      {
        method: req.method ?? "GET",
        target: route.url,
        headers: pairs,
        body: req,
        signal: abort.signal,
        timeoutMs: o.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        idleTimeoutMs: o.idleTimeoutMs,
        origin: { agent_name: agent ?? null, session_id: session ?? null, host: hostName },
        relocate: (location) => proxiedLocation(location, route.url, o.upstreams, route.name),
        recorded: (x) => {
          if (!peer) return o.onExchange(x);
          handedOver = new Promise((done) =>
            withPeer(peer, (p) => {
              try {
                o.onExchange(fromCaller(x, p));
              } finally {
                done();
              }
            }),
          );
        },
      },
      nodeSink(res),
    );
    const exchange = forwarded.then(() => handedOver);
    inFlight.add(exchange);
    void exchange.finally(() => inFlight.delete(exchange));
  };
  /** Resolves once no exchange is in flight (one that starts meanwhile is waited for too). */
  const drained = async (): Promise<void> => {
    while (inFlight.size) await Promise.all(inFlight);
  };
  /** `drained`, or `ms` from now, whichever comes first. */
  const drainedWithin = async (ms: number): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained(), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  };
  server.on("clientError", (_e, socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      const a = server.address() as net.AddressInfo;
      const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
      resolve({
        url: `http://${host}:${a.port}`,
        server,
        close: async (graceMs = DEFAULT_STOP_GRACE_MS) => {
          const closed = new Promise<void>((r) => server.close(() => r()));
          server.closeIdleConnections();
          await drainedWithin(graceMs);
          server.closeAllConnections(); // the answers still running are cut: recorded as far as they came
          await drained();
          await closed;
        },
      });
    });
  });
}
