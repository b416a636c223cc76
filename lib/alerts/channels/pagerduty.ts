// PagerDuty Events API v2 (POST <endpoint>, default https://events.pagerduty.com/v2/enqueue):
// an alert is a `trigger`, its end a `resolve` with the same dedup key — one key per fingerprint
// for interruption alerts, one per rule for rate rules — so PagerDuty keeps one alert open per
// problem and closes it when SightDesk sees the problem gone. PagerDuty answers 202; a 400 means
// the event itself is wrong (retrying cannot help), 429 and 5xx are worth retrying.
import { RESOLVING_EVENTS } from "../rules";
import { headline, isRateAlert, nsToMs, num, str, type StoredPayload } from "./payload";

export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";

/** SightDesk's severities in PagerDuty's words. */
export const PAGERDUTY_SEVERITY: Record<string, "critical" | "error" | "warning" | "info"> = { critical: "critical", high: "error", medium: "warning", low: "info" };
const ORDER = ["critical", "high", "medium", "low"];
const MAX_SUMMARY = 1024;
const MAX_DEDUP_KEY = 255;
const MAX_DETAIL = 8000;

export type PagerDutyContext = {
  routingKey: string;
  deliveryId: string;
  /** SightDesk's public base URL (client_url) */
  baseUrl: string;
  /** send a resolve whatever the event (the end of a test alert) */
  action?: "resolve";
};

/** The dedup key: per fingerprint for interruption alerts, per rule for rate rules, per delivery for tests. */
export function pagerDutyDedupKey(p: StoredPayload, deliveryId: string): string {
  let key: string;
  if (p.event === "webhook.test") key = `sightdesk/test/${deliveryId}`;
  else if (isRateAlert(p)) key = `sightdesk/rate/${str(p.rule?.id, "rule")}`;
  else key = `sightdesk/fingerprint/${p.fingerprint ?? (str(p.interruption?.fingerprint, "") || str(p.interruption?.interruption_id, deliveryId))}`;
  return key.slice(0, MAX_DEDUP_KEY);
}

const isoOf = (ns: unknown) => {
  const ms = nsToMs(ns);
  return ms === null ? undefined : new Date(ms).toISOString();
};

function interruptionPayload(p: StoredPayload) {
  const i = p.interruption ?? {};
  const detail = typeof i.detail === "string" && i.detail.length > MAX_DETAIL ? `${i.detail.slice(0, MAX_DETAIL)}…` : i.detail;
  return {
    source: str(i.agent_name, "unknown agent"),
    severity: PAGERDUTY_SEVERITY[str(i.severity, "")] ?? "error",
    timestamp: isoOf(i.occurred_at_ns),
    class: str(i.interruption_type, "interruption"),
    custom_details: { event: p.event, ...i, ...(detail === undefined ? {} : { detail }) },
  };
}

function ratePayloadFor(p: StoredPayload) {
  const rule = p.rule ?? {};
  const agents = Array.isArray(rule.agents) ? rule.agents.filter((a): a is string => typeof a === "string") : [];
  const types = Array.isArray(rule.types) ? rule.types.filter((t): t is string => typeof t === "string") : [];
  // the worst severity counted, else the rule's threshold
  const worst = ORDER.find((s) => (p.by_severity[s] ?? 0) > 0) ?? str(rule.min_severity, "high");
  return {
    source: agents.length ? agents.join(", ").slice(0, 255) : "all agents",
    severity: PAGERDUTY_SEVERITY[worst] ?? "error",
    timestamp: isoOf(p.window?.end_ns),
    component: types.length ? types.join(", ").slice(0, 255) : undefined,
    group: str(rule.name, "rate rule"),
    class: "interruption rate",
    custom_details: {
      count: p.count ?? 0,
      threshold: num(rule.threshold, 0),
      window_secs: num(rule.window_secs, 0),
      by_severity: p.by_severity,
      by_type: p.by_type,
      by_agent: p.by_agent,
      window: p.window,
      firing: p.firing,
    },
  };
}

/** The Events API v2 body for a stored alert. */
export function pagerDutyEvent(p: StoredPayload, ctx: PagerDutyContext) {
  const dedup_key = pagerDutyDedupKey(p, ctx.deliveryId);
  if (ctx.action === "resolve" || RESOLVING_EVENTS.has(p.event)) return { routing_key: ctx.routingKey, event_action: "resolve" as const, dedup_key };
  const details = isRateAlert(p) ? ratePayloadFor(p) : interruptionPayload(p);
  return {
    routing_key: ctx.routingKey,
    event_action: "trigger" as const,
    dedup_key,
    payload: {
      summary: headline(p).slice(0, MAX_SUMMARY),
      ...details,
      // a test pages nobody awake
      ...(p.event === "webhook.test" ? { severity: "info" as const } : {}),
    },
    links: p.url ? [{ href: p.url, text: "Open in SightDesk" }] : [],
    client: "SightDesk",
    client_url: ctx.baseUrl,
  };
}

/** Whether a failed answer is worth another try: not a 4xx other than 429 (the event itself is refused). */
export function pagerDutyRetryable(status: number): boolean {
  return status === 429 || status >= 500 || status < 400;
}
