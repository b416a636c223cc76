// One HTTP attempt of one alert: renders the body for the webhook's kind, signs generic bodies,
// and reports the outcome. Never throws; a hanging receiver is cut off by the timeout.
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signBody, slackPayload, type PayloadSummary } from "./rules";

export const DEFAULT_TIMEOUT_MS = 5000;

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;
export type SendTarget = { url: string; kind: string; secret: string | null };
export type SendItem = { id: string; event: string; payload: string };
/** `response`: on success, the start of the receiver's answer (e.g. a forwarder's JSON). */
export type SendResult = { ok: boolean; statusCode: number | null; error: string | null; durationMs: number; response?: string | null };

/** The bytes and headers of an attempt (exported for tests). */
export function renderRequest(target: SendTarget, item: SendItem): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "SightDesk-Webhook/1",
    [EVENT_HEADER]: item.event,
    [DELIVERY_HEADER]: item.id,
  };
  if (target.kind === "slack") {
    return { body: JSON.stringify(slackPayload(JSON.parse(item.payload) as PayloadSummary)), headers };
  }
  if (target.secret) headers[SIGNATURE_HEADER] = signBody(target.secret, item.payload);
  return { body: item.payload, headers };
}

function describe(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return `timed out after ${timeoutMs} ms`;
  const cause = err?.cause?.code ?? err?.cause?.message;
  return `${err?.message ?? String(e)}${cause ? ` (${cause})` : ""}`.slice(0, 500);
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
    const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
    return { ok: false, statusCode: res.status, error: `HTTP ${res.status}${snippet ? `: ${snippet}` : ""}`, durationMs };
  } catch (e) {
    return { ok: false, statusCode: null, error: describe(e, timeoutMs), durationMs: Date.now() - started };
  }
}
