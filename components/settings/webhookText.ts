// How a webhook's rule and channel read in Settings (one line each).
import type { WebhookRecord } from "@/components/api/types";

export type EmailSetup = { host: string; port: number; from: string } | null;

export function describeInterval(secs: number): string {
  if (secs === 0) return "every time";
  if (secs % 3600 === 0) return `${secs / 3600} h`;
  if (secs % 60 === 0) return `${secs / 60} min`;
  return `${secs} s`;
}

/** "at least 5 within 10 min" or "each new interruption · repeat 1 h" */
export function describeRule(w: WebhookRecord): string {
  if (w.rule === "rate") return `at least ${w.rate_threshold} within ${describeInterval(w.rate_window_secs ?? 0)}`;
  return `each new interruption · repeat ${describeInterval(w.repeat_interval_secs)}`;
}

/** Which interruptions the rule looks at. */
export function describeFilter(w: WebhookRecord): string {
  const types = w.types.length ? w.types.join(", ") : "every type";
  const agents = w.agents.length ? `agents: ${w.agents.join(", ")}` : "every agent";
  return `${w.min_severity} and above · ${types} · ${agents}`;
}

export const CHANNEL_LABEL: Record<WebhookRecord["kind"], string> = {
  generic: "generic, signed",
  slack: "Slack",
  pagerduty: "PagerDuty",
  email: "email",
};

/** Where alerts go: the URL, the recipients, or the PagerDuty endpoint and key hint. */
export function describeDestination(w: WebhookRecord): string {
  if (w.kind === "email") return w.email_to.join(", ");
  if (w.kind === "pagerduty") return `${w.url} · routing key ${w.routing_key_hint ?? "—"}`;
  return w.url;
}

/** A link within SightDesk for an alert's URL (its path and query), or null when it has none. */
export function localLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return null;
  }
}
