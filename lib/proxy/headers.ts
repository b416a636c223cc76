// What goes upstream and what is recorded (SPEC §2.6). Pure: header lists in, header lists out.
//
// Upstream: everything the agent sent (its provider key included) except the hop-by-hop headers
// of this connection and SightDesk's own `X-SightDesk-*` headers; Host becomes the upstream's.
// Recorded: the same, without anything that carries a credential (Authorization, x-api-key,
// api-key, cookies, any credential-named header or Bearer/Basic value; key-shaped text masked), and a URL without userinfo or credential
// query parameters. Nothing recorded leaves the proxy with a key in it.
import { isSecretName, redactText } from "../ingest/redact";

/** Headers of one connection, not of the message (RFC 9110 §7.6.1), plus proxy credentials. */
const HOP_BY_HOP = new Set([
  "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
  "te", "trailer", "transfer-encoding", "upgrade", "host",
]);

/** Credential headers by name, beyond what `isSecretName` recognizes. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "set-cookie", "x-goog-api-key", "ocp-apim-subscription-key"]);

/** Header names that end in a credential word (`helicone-auth`, `x-functions-key`, `x-auth-token`). */
const CREDENTIAL_SUFFIX = /(?:^|[-_])(?:auth|key|token|secret|signature|password|passwd|credentials?)$/;

/** Names that end like a credential but are not one (kept: they help to debug retries). */
const NOT_CREDENTIALS = new Set(["idempotency-key", "x-idempotency-key"]);

/** A value that is a credential whatever its header's name (`Bearer …`, `Basic …`). */
const CREDENTIAL_VALUE = /^\s*(?:bearer|basic|token)\s+\S/i;

/** Query parameters that carry credentials (besides credential-shaped names such as `api_key`). */
const CREDENTIAL_PARAMS = new Set(["key", "apikey", "api-key", "api_key", "token", "access_token", "sig", "signature", "code", "auth", "x-api-key", "password"]);

export const SIGHTDESK_PREFIX = "x-sightdesk-";

export type HeaderList = Record<string, string | string[] | undefined>;

/** The headers of a Node request as [name, value] pairs in their original order and spelling. */
export function pairsFromRaw(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i], raw[i + 1]]);
  return out;
}

/** Header names listed in `Connection` are hop-by-hop too. */
function connectionListed(pairs: [string, string][]): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of pairs) if (k.toLowerCase() === "connection") for (const t of v.split(",")) if (t.trim()) out.add(t.trim().toLowerCase());
  return out;
}

/** What the upstream gets: the agent's headers minus hop-by-hop and X-SightDesk-*, Host set to the upstream's. */
export function upstreamRequestHeaders(pairs: [string, string][], upstreamHost: string): [string, string][] {
  const listed = connectionListed(pairs);
  const out: [string, string][] = [["Host", upstreamHost]];
  for (const [k, v] of pairs) {
    const lower = k.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || lower.startsWith(SIGHTDESK_PREFIX)) continue;
    out.push([k, v]);
  }
  return out;
}

/**
 * The framing of the body that goes upstream. The agent's Transfer-Encoding is hop-by-hop and
 * dropped, and Node frames a body only for methods it expects one of (not GET, DELETE,
 * OPTIONS): a body it did not frame would reach the upstream as the start of a next request on
 * the pooled connection. So a body without a Content-Length is sent chunked, said explicitly;
 * a request that sends none carries no Content-Length that would promise one.
 */
export function framedRequestHeaders(pairs: [string, string][], sendsBody: boolean): [string, string][] {
  const hasLength = headerValue(pairs, "content-length") !== undefined;
  if (!sendsBody) return hasLength ? pairs.filter(([k]) => k.toLowerCase() !== "content-length") : pairs;
  return hasLength ? pairs : [...pairs, ["Transfer-Encoding", "chunked"]];
}

/** What the agent gets back: the upstream's headers minus hop-by-hop ones (Node re-frames the body). */
export function clientResponseHeaders(pairs: [string, string][]): [string, string][] {
  const listed = connectionListed(pairs);
  return pairs.filter(([k]) => {
    const lower = k.toLowerCase();
    return !(HOP_BY_HOP.has(lower) || listed.has(lower));
  });
}

const credentialNames = new Map<string, boolean>();

export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  let known = credentialNames.get(lower);
  if (known === undefined) {
    known = CREDENTIAL_HEADERS.has(lower) || isSecretName(lower) || (CREDENTIAL_SUFFIX.test(lower) && !NOT_CREDENTIALS.has(lower));
    if (credentialNames.size < 10_000) credentialNames.set(lower, known);
  }
  return known;
}

/**
 * Headers as recorded: lower-case names, credentials (by name or by value) and X-SightDesk-*
 * removed, key-shaped text in the rest masked, repeated values joined.
 */
export function recordedHeaders(pairs: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  const listed = connectionListed(pairs);
  for (const [k, v] of pairs) {
    const lower = k.toLowerCase();
    if (isCredentialHeader(lower) || CREDENTIAL_VALUE.test(v) || lower.startsWith(SIGHTDESK_PREFIX) || HOP_BY_HOP.has(lower) || listed.has(lower)) continue;
    const value = redactText(v);
    out[lower] = lower in out ? `${out[lower]}, ${value}` : value;
  }
  return out;
}

/** A URL as recorded: no userinfo, no fragment, no credential query parameters. */
export function recordedUrl(url: URL): string {
  const u = new URL(url.toString());
  u.username = "";
  u.password = "";
  u.hash = "";
  for (const name of [...new Set(u.searchParams.keys())]) {
    const lower = name.toLowerCase();
    if (CREDENTIAL_PARAMS.has(lower) || isSecretName(lower)) u.searchParams.delete(name);
  }
  return u.toString();
}

/** The value of one header (first occurrence, case-insensitive), or undefined. */
export function headerValue(pairs: [string, string][], name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of pairs) if (k.toLowerCase() === lower) return v;
  return undefined;
}
