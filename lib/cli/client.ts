// The REST client: one request per call, bearer auth, exact-integer JSON, and every failure
// turned into a message a person can act on (CliError, exit 1).
import { parseJsonExact } from "../wire/json";
import type { Connection } from "./config";
import { CliError, EXIT_REQUEST } from "./errors";
import { isObj } from "./replies";
import { safeLine } from "./format";

export type Query = Record<string, string | undefined>;

export type RequestOptions = {
  query?: Query;
  body?: unknown;
  /** the message for a 404, e.g. `Interruption not found: <id>` */
  notFound?: string;
  /** extra request headers */
  headers?: Record<string, string>;
};

export type ApiResponse = {
  status: number;
  /** the body as received (exact, for --json) */
  text: string;
  /** the body parsed with exact `*_ns` integers */
  value: unknown;
  headers: Headers;
};

const TIMEOUT_MS = 30_000;

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed by the server",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed TLS certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
};

function errorCode(e: unknown): string | undefined {
  if (!isObj(e) && !(e instanceof Error)) return undefined;
  const rec = e as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof rec.code === "string") return rec.code;
  if (Array.isArray(rec.errors)) for (const inner of rec.errors) {
    const code = errorCode(inner);
    if (code) return code;
  }
  return rec.cause === undefined ? undefined : errorCode(rec.cause);
}

/** Why fetch could not get a response at all. */
function networkReason(e: unknown): string {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) return `no answer within ${TIMEOUT_MS / 1000} s`;
  const code = errorCode(e);
  if (code) return NETWORK_REASONS[code] ?? code;
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : String(e);
  return safeLine(cause);
}

function serverMessage(value: unknown): string | null {
  return isObj(value) && typeof value.error === "string" ? safeLine(value.error) : null;
}

export class SightDeskClient {
  constructor(readonly conn: Connection) {}

  get url(): string {
    return this.conn.url;
  }

  urlFor(path: string, query: Query = {}): string {
    const url = new URL(this.conn.url + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    return url.toString();
  }

  get(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.request("GET", path, options);
  }

  post(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.request("POST", path, { ...options, body: options.body ?? {} });
  }

  delete(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.request("DELETE", path, options);
  }

  /** A path on this server (as in a `Link` header) fetched as-is. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const target = this.urlFor(path, options.query);
    const headers: Record<string, string> = { ...options.headers, authorization: `Bearer ${this.conn.token}`, accept: "application/json" };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(target, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw new CliError(`Cannot reach SightDesk at ${this.conn.url}: ${networkReason(e)}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new CliError(`Cannot read the answer from SightDesk at ${this.conn.url}: ${networkReason(e)}`);
    }
    let value: unknown;
    try {
      value = parseJsonExact(text);
    } catch {
      value = undefined;
    }
    if (!res.ok) throw this.failure(res, value, options.notFound);
    if (value === undefined) {
      throw new CliError(`Unexpected answer from ${this.conn.url} (HTTP ${res.status}, not JSON): is this a SightDesk server?`);
    }
    return { status: res.status, text, value, headers: res.headers };
  }

  private failure(res: Response, value: unknown, notFound: string | undefined): CliError {
    const message = serverMessage(value);
    const where = this.conn.url;
    switch (res.status) {
      case 401:
        return new CliError(`Token rejected by ${where}: ${message ?? "unauthorized"} (the token came from ${this.conn.tokenSource})`, EXIT_REQUEST, 401);
      case 403:
        return new CliError(message ?? `Forbidden by ${where}`, EXIT_REQUEST, 403);
      case 404:
        if (message === null) return new CliError(`Not found at ${where} (HTTP 404): is this a SightDesk server?`);
        return new CliError(notFound ?? message);
      default:
        break;
    }
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get("location");
      return new CliError(`SightDesk at ${where} redirects${location ? ` to ${safeLine(location)}` : ""}: pass the final address with --url`);
    }
    if (res.status >= 500) return new CliError(`SightDesk at ${where} failed (HTTP ${res.status}): ${message ?? "server error"}`, EXIT_REQUEST, res.status);
    return new CliError(message ?? `Request failed (HTTP ${res.status})`, EXIT_REQUEST, res.status);
  }
}
