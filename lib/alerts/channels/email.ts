// Email: a subject that says what happened and a plain-text body (no HTML: agent and rule names
// are untrusted text, and plain text cannot run anything). The Message-ID is derived from the
// delivery id, so the resend of a delivery after a server died mid-send is the same message.
import { headline, isRateAlert, nsToMs, num, rateCountLine, str, type StoredPayload } from "./payload";
import { describeWindow } from "../rate";

export type EmailMessage = { subject: string; text: string; messageId: string; headers: Record<string, string> };

/** One line, no control characters (a header must not be split by untrusted text). */
const oneLine = (s: string, max: number) => s.replace(/[\u0000-\u001f\u007f]+/g, " ").slice(0, max);
const when = (ns: unknown) => {
  const ms = nsToMs(ns);
  return ms === null ? "unknown" : new Date(ms).toISOString();
};
const countLines = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `  ${oneLine(k, 200)}: ${n}`);

function interruptionBody(p: StoredPayload): string[] {
  const i = p.interruption ?? {};
  const lines = [
    `Severity:    ${oneLine(str(i.severity, "unknown"), 50)}`,
    `Type:        ${oneLine(str(i.interruption_type, "interruption"), 100)}`,
    `Agent:       ${oneLine(str(i.agent_name, "unknown agent"), 200)}`,
  ];
  if (typeof i.session_id === "string" && i.session_id) lines.push(`Session:     ${oneLine(i.session_id, 200)}`);
  lines.push(`Occurred:    ${when(i.occurred_at_ns)}`);
  if (typeof i.occurrences === "number") lines.push(`Occurrences: ${i.occurrences}`);
  if (p.event === "interruption.resolved") lines.push("", "No unresolved interruption of this fingerprint is left.");
  return lines;
}

function rateBody(p: StoredPayload): string[] {
  const rule = p.rule ?? {};
  const lines = [
    `Rule:        ${oneLine(str(rule.name, "rate rule"), 200)}: at least ${num(rule.threshold, 0)} interruptions within ${describeWindow(num(rule.window_secs, 0))}`,
    `Now:         ${rateCountLine(p)}`,
    `Window:      ${when(p.window?.start_ns)} to ${when(p.window?.end_ns)}`,
  ];
  if (p.event === "rate.resolved") lines.push(`Firing:      ${when(p.firing?.since_ns)} to ${when(p.firing?.resolved_at_ns)}`);
  for (const [label, counts] of [["By severity", p.by_severity], ["By type", p.by_type], ["By agent", p.by_agent]] as const) {
    const rows = countLines(counts);
    if (rows.length) lines.push("", `${label}:`, ...rows);
  }
  return lines;
}

export function emailMessage(p: StoredPayload, deliveryId: string): EmailMessage {
  const subject = `[SightDesk] ${oneLine(headline(p), 300)}`;
  const body = isRateAlert(p) ? rateBody(p) : interruptionBody(p);
  const link = isRateAlert(p) ? "Open the inbox" : "Open in SightDesk";
  const text = [oneLine(headline(p), 1000), "", ...body, "", `${link}: ${p.url}`, "", "--", "Sent by SightDesk alerting. Change or stop these emails in Settings, Alert webhooks.", ""].join("\n");
  return {
    subject,
    text,
    messageId: `<${deliveryId}@sightdesk>`,
    headers: { "X-SightDesk-Event": p.event, "X-SightDesk-Delivery": deliveryId },
  };
}

/** An email webhook's `url`: its recipients as one mailto: URL (RFC 6068). */
export function mailtoUrl(addresses: readonly string[]): string {
  return `mailto:${addresses.map((a) => encodeURIComponent(a).replace(/%40/g, "@")).join(",")}`;
}

/** The recipients of a mailto: URL (none for any other URL). */
export function mailtoRecipients(url: string): string[] {
  if (!url.startsWith("mailto:")) return [];
  const to = url.slice("mailto:".length).split("?")[0];
  return to
    .split(",")
    .map((a) => {
      try {
        return decodeURIComponent(a).trim();
      } catch {
        return "";
      }
    })
    .filter(Boolean);
}
