// One attempt of one alert: renders the stored generic body for the webhook's channel (signed
// JSON, Slack, a PagerDuty event, an email), sends it, and reports the outcome. Never throws; a
// hanging receiver is cut off by the timeout. A failure is recorded as its status or error class
// only: the text a receiver answers with is never stored (it could be anything the URL's owner —
// or whatever it points at — says).
import { OutboundBlockedError } from "../net/pinned";
import { stringifyExact } from "../wire/json";
import { emailMessage, mailtoRecipients } from "./channels/email";
import { pagerDutyEvent, pagerDutyRetryable } from "./channels/pagerduty";
import { readPayload } from "./channels/payload";
import { slackPayload } from "./channels/slack";
import type { MailLike } from "./mailer";
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signBody, TIMESTAMP_HEADER, unixSeconds } from "./rules";

export const DEFAULT_TIMEOUT_MS = 5000;

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;
export type SendTarget = { url: string; kind: string; secret: string | null; routingKey?: string | null };
/** `action: "resolve"`: send the channel's resolve for this alert (PagerDuty; the end of a test). */
export type SendItem = { id: string; event: string; payload: string; action?: "resolve" };
/** How alerts leave: HTTP (through the outbound policy), SMTP (null: not configured), and the base of links. */
export type Channels = { fetch: FetchLike; mail?: MailLike | null; baseUrl: string };
/**
 * `response`: on success, the start of the receiver's answer (e.g. a forwarder's JSON).
 * `retryable: false`: the alert itself was refused, or cannot be sent as configured (another try
 * would fail the same way).
 */
export type SendResult = { ok: boolean; statusCode: number | null; error: string | null; durationMs: number; response?: string | null; retryable?: boolean };

/** The bytes and headers of an HTTP attempt (exported for tests); generic bodies are signed at `nowMs`. */
export function renderRequest(target: SendTarget, item: SendItem, nowMs = Date.now(), baseUrl = ""): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "SightDesk-Webhook/1",
    [EVENT_HEADER]: item.event,
    [DELIVERY_HEADER]: item.id,
  };
  if (target.kind === "slack") return { body: JSON.stringify(slackPayload(readPayload(item.payload))), headers };
  if (target.kind === "pagerduty") {
    const event = pagerDutyEvent(readPayload(item.payload), { routingKey: target.routingKey ?? "", deliveryId: item.id, baseUrl, action: item.action });
    return { body: stringifyExact(event), headers };
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

const failed = (error: string, started: number, retryable = true): SendResult => ({
  ok: false,
  statusCode: null,
  error,
  durationMs: Date.now() - started,
  ...(retryable ? {} : { retryable }),
});

/** One HTTP attempt (generic, Slack, PagerDuty; and the dead-loop action's terminate requests). */
export async function sendOnce(fetchImpl: FetchLike, target: SendTarget, item: SendItem, timeoutMs = DEFAULT_TIMEOUT_MS, baseUrl = ""): Promise<SendResult> {
  const started = Date.now();
  if (target.kind === "pagerduty" && !target.routingKey) return failed("no routing key", started, false);
  try {
    const { body, headers } = renderRequest(target, item, Date.now(), baseUrl);
    const signal = AbortSignal.timeout(timeoutMs);
    const res = await fetchImpl(target.url, { method: "POST", headers, body, signal, redirect: "manual", cache: "no-store" });
    // read (a little of) the answer under the same deadline, so the connection is released
    const text = await res.text().catch(() => "");
    const durationMs = Date.now() - started;
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, error: null, durationMs, response: text.slice(0, 1000) };
    const refused = target.kind === "pagerduty" && !pagerDutyRetryable(res.status);
    return { ok: false, statusCode: res.status, error: `HTTP ${res.status}`, durationMs, ...(refused ? { retryable: false } : {}) };
  } catch (e) {
    return failed(describeFailure(e, timeoutMs), started);
  }
}

async function sendEmail(mail: MailLike | null | undefined, target: SendTarget, item: SendItem, timeoutMs: number): Promise<SendResult> {
  const started = Date.now();
  if (!mail) return failed("email is not configured (smtp.host, smtp.from)", started, false);
  const to = mailtoRecipients(target.url);
  if (!to.length) return failed("no recipients", started, false);
  try {
    const message = emailMessage(readPayload(item.payload), item.id);
    const { responseCode } = await mail({ ...message, to }, timeoutMs);
    return { ok: true, statusCode: responseCode, error: null, durationMs: Date.now() - started };
  } catch (e) {
    // an SMTP refusal is recorded by its reply code; 5xx is permanent, 4xx worth another try
    const code = (e as { responseCode?: unknown })?.responseCode;
    if (typeof code === "number" && code >= 400 && code < 600) {
      return { ok: false, statusCode: code, error: `SMTP ${code}`, durationMs: Date.now() - started, ...(code >= 500 ? { retryable: false } : {}) };
    }
    return failed(describeFailure(e, timeoutMs), started);
  }
}

/** One attempt of an alert over its webhook's channel. */
export async function sendAlert(via: Channels, target: SendTarget, item: SendItem, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<SendResult> {
  if (target.kind === "email") return sendEmail(via.mail, target, item, timeoutMs);
  return sendOnce(via.fetch, target, item, timeoutMs, via.baseUrl);
}
