// Outbound requests that go only where lib/net/outbound.ts allows: the URL's host is resolved
// once, every address it resolves to is checked, and the connection is made to the checked
// address (pinned through the socket's `lookup`), so a DNS answer that changes between the check
// and the connect (DNS rebinding) cannot send the request elsewhere. TLS keeps the host name for
// SNI and certificate checks, and the Host header stays the URL's. Redirects are not followed.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { checkAddress, parseIp, type Cidr } from "./outbound";

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to all its addresses (injectable for tests). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** A request refused before any connection was made (the message names host and address). */
export class OutboundBlockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundBlockedError";
  }
}

export type OutboundPolicy = { allow: readonly Cidr[]; resolve?: Resolver };

/** The URL's host name as a resolver or an IP parser wants it (no brackets). */
function hostOf(u: URL): string {
  return u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
}

/**
 * Resolves the URL's host and checks every address it has; the first one is where to connect.
 * Throws OutboundBlockedError when any address is refused or the name does not resolve.
 */
export async function resolveOutbound(url: string | URL, policy: OutboundPolicy): Promise<ResolvedAddress> {
  const u = typeof url === "string" ? new URL(url) : url;
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new OutboundBlockedError(`only http and https URLs are allowed, not ${u.protocol}`);
  const host = hostOf(u);
  const literal = parseIp(host);
  let addresses: ResolvedAddress[];
  if (literal) addresses = [{ address: host, family: literal.v }];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch (e) {
      throw new OutboundBlockedError(`cannot resolve ${host} (${(e as NodeJS.ErrnoException)?.code ?? "lookup failed"})`);
    }
    if (!addresses.length) throw new OutboundBlockedError(`cannot resolve ${host} (no addresses)`);
  }
  for (const a of addresses) {
    const verdict = checkAddress(a.address, policy.allow);
    if (!verdict.ok) throw new OutboundBlockedError(literal ? `${verdict.reason}` : `${host} resolves to ${verdict.reason}`);
  }
  return addresses[0];
}

const MAX_ANSWER_BYTES = 64 * 1024;
const NULL_BODY = new Set([101, 204, 205, 304]);

function headersOf(init: RequestInit): Record<string, string> {
  return Object.fromEntries(new Headers(init.headers).entries());
}

/** `work`, or its abort as soon as `signal` fires: a DNS lookup cannot be cancelled, only no longer waited for. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined); // no longer waited for: its failure is nobody's
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const done = () => signal.removeEventListener("abort", onAbort);
    work.then((v) => (done(), resolve(v)), (e) => (done(), reject(e)));
  });
}

/**
 * A fetch-like function (POST/GET with a string body) that resolves, checks and pins the address
 * as above. The answer is read up to 64 KB. Abort with `init.signal`.
 */
export function pinnedFetch(policy: OutboundPolicy) {
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    const u = new URL(url);
    const target = await untilAborted(resolveOutbound(u, policy), init.signal);
    const host = hostOf(u);
    const secure = u.protocol === "https:";
    const lookup: LookupFunction = (_hostname, options, callback) => {
      const cb = callback as (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
      if ((options as dns.LookupOptions).all) cb(null, [{ address: target.address, family: target.family }]);
      else cb(null, target.address, target.family);
    };
    const body = init.body == null ? undefined : String(init.body);
    const options: https.RequestOptions = {
      protocol: u.protocol,
      hostname: host,
      port: u.port || (secure ? 443 : 80),
      path: `${u.pathname}${u.search}`,
      method: init.method ?? "GET",
      headers: { ...headersOf(init), ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
      agent: false,
      lookup,
      signal: init.signal ?? undefined,
      ...(secure && !parseIp(host) ? { servername: host } : {}),
    };
    return new Promise<Response>((resolve, reject) => {
      const req = (secure ? https : http).request(options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(c);
          size += c.length;
          if (size >= MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString("utf8").slice(0, MAX_ANSWER_BYTES);
          try {
            resolve(new Response(NULL_BODY.has(status) ? null : text, { status }));
          } catch {
            reject(new Error(`unusable HTTP status ${status}`));
          }
        };
        res.on("end", done);
        res.on("close", () => (size >= MAX_ANSWER_BYTES ? done() : undefined));
        res.on("error", (e) => (size >= MAX_ANSWER_BYTES ? done() : reject(init.signal?.aborted ? init.signal.reason : e)));
        res.on("aborted", () => reject(init.signal?.aborted ? init.signal.reason : new Error("connection closed mid-answer")));
      });
      req.on("error", (e) => reject(init.signal?.aborted ? init.signal.reason : e));
      req.end(body);
    });
  };
}
