// One HTTP attempt of one alert: renders the body for the webhook's kind, signs generic bodies
// (timestamped), and reports the outcome. Never throws; a hanging receiver is cut off by the
// timeout. A failure is recorded as its status or error class only: the text a receiver answers
// with is never stored (it could be anything the URL's owner — or whatever it points at — says).
import { OutboundBlockedError } from "../net/pinned";
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signBody, slackPayload, TIMESTAMP_HEADER, unixSeconds, type PayloadSummary } from "./rules";

export const DEFAULT_TIMEOUT_MS = 5000;

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;
export type SendTarget = { url: string; kind: string; secret: string | null };
export type SendItem = { id: string; event: string; payload: string };
/** `response`: on success, the start of the receiver's answer (e.g. a forwarder's JSON). */
export type SendResult = { ok: boolean; statusCode: number | null; error: string | null; durationMs: number; response?: string | null };

/** The bytes and headers of an attempt (exported for tests); generic bodies are signed at `nowMs`. */
export function renderRequest(target: SendTarget, item: SendItem, nowMs = Date.now()): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "SightDesk-Webhook/1",
    [EVENT_HEADER]: item.event,
    [DELIVERY_HEADER]: item.id,
  };
  if (target.kind === "slack") {
    return { body: JSON.stringify(slackPayload(JSON.parse(item.payload) as PayloadSummary)), headers };
  }
  if (target.secret) {
    const ts = unixSeconds(nowMs);
    headers[TIMESTAMP_HEADER] = String(ts);
    headers[SIGNATURE_HEADER] = signBody(target.secret, item.payload, ts);
  }
  return { body: item.payload, headers };
}

/** A failed attempt in a few words of our own: timeout, refused destination, or the error's code / class. */
export function describeFailure(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; message?: string; code?: unknown; cause?: { code?: unknown; name?: string } };
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return `timed out after ${timeoutMs} ms`;
  if (e instanceof OutboundBlockedError) return `refused: ${e.message}`.slice(0, 500);
  const code = [err?.cause?.code, err?.code].find((c): c is string => typeof c === "string" && /^[A-Z0-9_]{2,64}$/.test(c));
  return `request failed (${code ?? err?.cause?.name ?? err?.name ?? "error"})`;
}

export async function sendOnce(fetchImpl: FetchLike, target: SendTarget, item: SendItem, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<SendResult> {
  const started = Date.now();
  try {
    const { body, headers } = renderRequest(target, item);
    const signal = AbortSignal.timeout(timeoutMs);
    const res = await fetchImpl(target.url, { method: "POST", headers, body, signal, redirect: "manual", cache: "no-store" });
    // read (a little of) the answer under the same deadline, so the connection is released
    const text = await res.text().catch(() => "");
    const durationMs = Date.now() - started;
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, error: null, durationMs, response: text.slice(0, 1000) };
    return { ok: false, statusCode: res.status, error: `HTTP ${res.status}`, durationMs };
  } catch (e) {
    return { ok: false, statusCode: null, error: describeFailure(e, timeoutMs), durationMs: Date.now() - started };
  }
}
