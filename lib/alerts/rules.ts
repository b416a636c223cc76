// Alerts (SPEC §7): the pure parts — which interruptions a webhook wants, the retry schedule,
// the HMAC signature and the bodies sent (generic JSON and Slack). No I/O here.
import crypto from "node:crypto";
import { SEVERITY_WEIGHT, type Severity } from "../detect/types";

export const WEBHOOK_KINDS = ["generic", "slack"] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

export const ALERT_EVENTS = ["interruption.created", "interruption.regressed", "webhook.test"] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const SIGNATURE_HEADER = "X-SightDesk-Signature";
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

/** `sha256=<hex HMAC-SHA256 of the raw body>`: the value of X-SightDesk-Signature. */
export function signBody(secret: string, body: string): string {
  return `sha256=${crypto.createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** Constant-time check of a signature header against the body (what a receiver does). */
export function verifySignature(secret: string, body: string, header: string | null | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header.trim());
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
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

/** What the Slack renderer reads from a stored generic payload. */
export type PayloadSummary = {
  event: string;
  url: string;
  interruption: { interruption_id?: unknown; interruption_type?: unknown; severity?: unknown; agent_name?: unknown; session_id?: unknown; occurrences?: unknown };
};

const SEVERITY_ICON: Record<string, string> = { critical: ":red_circle:", high: ":large_orange_circle:", medium: ":large_yellow_circle:", low: ":white_circle:" };

/** Slack mrkdwn treats &, < and > as markup: escape untrusted text. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const str = (v: unknown, fallback: string) => (typeof v === "string" && v ? v : fallback);

/** A Slack-compatible body (`text` for notifications, `blocks` for the message). */
export function slackPayload(p: PayloadSummary) {
  const i = p.interruption;
  const severity = str(i.severity, "unknown");
  const type = str(i.interruption_type, "interruption");
  const agent = str(i.agent_name, "unknown agent");
  const verb = p.event === "interruption.regressed" ? "regressed" : p.event === "webhook.test" ? "test alert" : "new";
  const text = `[${severity.toUpperCase()}] ${type} (${verb}) on ${agent}`;
  const fields = [
    { type: "mrkdwn", text: `*Severity*\n${slackEscape(severity)}` },
    { type: "mrkdwn", text: `*Type*\n${slackEscape(type)}` },
    { type: "mrkdwn", text: `*Agent*\n${slackEscape(agent)}` },
  ];
  if (typeof i.session_id === "string" && i.session_id) fields.push({ type: "mrkdwn", text: `*Session*\n${slackEscape(i.session_id)}` });
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `${SEVERITY_ICON[severity] ?? ""} *${slackEscape(text)}*`.trim() } },
      { type: "section", fields },
      { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in SightDesk" }, url: p.url }] },
    ],
  };
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
