// Alerts (SPEC §7): the pure parts — which interruptions a webhook wants, the retry schedule,
// the timestamped HMAC signature and the generic body (the other channels render it:
// lib/alerts/channels). No I/O here.
import crypto from "node:crypto";
import { SEVERITY_WEIGHT, type Severity } from "../domain/interruptions";

/** The channel: how an alert is sent (signed JSON, a Slack message, a PagerDuty event, an email). */
export const WEBHOOK_KINDS = ["generic", "slack", "pagerduty", "email"] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** What fires: each new (or regressed) interruption, or a rate of them (lib/alerts/rate.ts). */
export const RULE_KINDS = ["each", "rate"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const ALERT_EVENTS = [
  "interruption.created",
  "interruption.regressed",
  /** PagerDuty only: the fingerprint paged about has no unresolved interruption left */
  "interruption.resolved",
  "rate.triggered",
  "rate.resolved",
  "webhook.test",
] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

/** Events that close what an earlier one opened (PagerDuty `resolve`). */
export const RESOLVING_EVENTS: ReadonlySet<string> = new Set(["interruption.resolved", "rate.resolved"]);

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const SIGNATURE_HEADER = "X-SightDesk-Signature";
export const TIMESTAMP_HEADER = "X-SightDesk-Timestamp";
export const EVENT_HEADER = "X-SightDesk-Event";
export const DELIVERY_HEADER = "X-SightDesk-Delivery";

/** Attempts before a delivery is given up as failed. */
export const MAX_ATTEMPTS = 6;
const BACKOFF_BASE_MS = 2000;
const BACKOFF_CAP_MS = 5 * 60_000;

/** What a webhook filters on. Empty type/agent lists mean "every". */
export type AlertRule = { minSeverity: Severity; types: readonly string[]; agents: readonly string[] };
export type AlertCandidate = { severity: string; type: string; agentName: string | null };

export function severityWeight(severity: string): number {
  return SEVERITY_WEIGHT[severity as Severity] ?? 0;
}

/** Whether an interruption is at or above the webhook's severity and in its type and agent lists. */
export function matchesRule(rule: AlertRule, i: AlertCandidate): boolean {
  if (severityWeight(i.severity) < severityWeight(rule.minSeverity)) return false;
  if (rule.types.length > 0 && !rule.types.includes(i.type)) return false;
  if (rule.agents.length > 0 && (i.agentName === null || !rule.agents.includes(i.agentName))) return false;
  return true;
}

/** The severities at or above `min` (for the worker's SQL filter). */
export function severitiesAtOrAbove(min: string): Severity[] {
  return (Object.keys(SEVERITY_WEIGHT) as Severity[]).filter((s) => SEVERITY_WEIGHT[s] >= severityWeight(min));
}

/**
 * Delay before the next try after `attempts` failed ones (1-based): 2 s, 4 s, 8 s, … capped at
 * 5 minutes; null once MAX_ATTEMPTS have been made (the delivery has failed).
 */
export function backoffMs(attempts: number, maxAttempts = MAX_ATTEMPTS): number | null {
  if (attempts >= maxAttempts) return null;
  const n = Math.max(1, attempts);
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (n - 1));
}

/** Receivers refuse a signature whose timestamp is further than this from their clock (replays). */
export const SIGNATURE_TOLERANCE_SECS = 300;

/** What is signed: the X-SightDesk-Timestamp value (unix seconds, decimal), a full stop, and the raw body bytes. */
export function signedContent(timestamp: number | string, body: string): string {
  return `${timestamp}.${body}`;
}

/**
 * `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`: the value of X-SightDesk-Signature,
 * sent with `X-SightDesk-Timestamp: <timestamp>` (unix seconds).
 */
export function signBody(secret: string, body: string, timestamp: number): string {
  return `sha256=${crypto.createHmac("sha256", secret).update(signedContent(timestamp, body), "utf8").digest("hex")}`;
}

/** The current time as the timestamp header wants it: whole unix seconds. */
export const unixSeconds = (nowMs = Date.now()) => Math.floor(nowMs / 1000);

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: "missing" | "bad_timestamp" | "expired" | "mismatch"; error: string };

/**
 * What a receiver does with a delivery: the timestamp header must be whole unix seconds within
 * `toleranceSecs` of `nowMs` (either way), and the signature header must be the HMAC of
 * `<timestamp>.<raw body>` (compared in constant time). Pass the raw body bytes as received.
 */
export function checkSignature(
  secret: string,
  body: string,
  signature: string | null | undefined,
  timestamp: string | null | undefined,
  options: { nowMs?: number; toleranceSecs?: number } = {},
): SignatureCheck {
  if (!signature || !timestamp) return { ok: false, reason: "missing", error: `missing ${!signature ? SIGNATURE_HEADER : TIMESTAMP_HEADER}` };
  const t = timestamp.trim();
  if (!/^\d{1,12}$/.test(t)) return { ok: false, reason: "bad_timestamp", error: `${TIMESTAMP_HEADER} is not unix seconds` };
  const ts = Number(t);
  const tolerance = options.toleranceSecs ?? SIGNATURE_TOLERANCE_SECS;
  if (Math.abs(unixSeconds(options.nowMs) - ts) > tolerance) {
    return { ok: false, reason: "expired", error: `${TIMESTAMP_HEADER} ${ts} is outside the ${tolerance} s window` };
  }
  const expected = Buffer.from(signBody(secret, body, ts));
  const given = Buffer.from(signature.trim());
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return { ok: false, reason: "mismatch", error: `bad ${SIGNATURE_HEADER}` };
  return { ok: true, timestamp: ts };
}

/** `checkSignature(…).ok`: true for a good signature with a fresh timestamp. */
export function verifySignature(
  secret: string,
  body: string,
  signature: string | null | undefined,
  timestamp: string | null | undefined,
  options: { nowMs?: number; toleranceSecs?: number } = {},
): boolean {
  return checkSignature(secret, body, signature, timestamp, options).ok;
}

/** A new signing secret: 32 random bytes, hex, with a recognisable prefix. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString("hex")}`;
}

/** The base of links in alerts: SIGHTDESK_PUBLIC_URL, else the local server. */
export function publicBaseUrl(env: Record<string, string | undefined> = process.env): string {
  const configured = env.SIGHTDESK_PUBLIC_URL?.trim();
  if (configured) return configured.replace(/\/+$/, "");
  return `http://localhost:${env.PORT || 3000}`;
}

export function interruptionUrl(base: string, id: string): string {
  return `${base}/interruptions/${encodeURIComponent(id)}`;
}

/** The generic payload (before JSON encoding; the record's `*_ns` values are bigints). */
export function genericPayload(event: AlertEvent, record: { interruption_id: string } & Record<string, unknown>, base: string) {
  return { event, interruption: record, url: interruptionUrl(base, record.interruption_id) };
}

/** Parses a stored JSON list (types, agents); anything else is an empty list. */
export function parseList(text: string | null | undefined): string[] {
  try {
    const v: unknown = JSON.parse(text ?? "[]");
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}
