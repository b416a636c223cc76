// Slack (incoming webhooks): `text` for the notification, `blocks` for the message. Agent,
// type and rule names are untrusted text: escaped for Slack's mrkdwn.
import { headline, isRateAlert, str, type StoredPayload } from "./payload";

const SEVERITY_ICON: Record<string, string> = { critical: ":red_circle:", high: ":large_orange_circle:", medium: ":large_yellow_circle:", low: ":white_circle:" };

/** Slack mrkdwn treats &, < and > as markup: escape untrusted text. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

type Field = { type: "mrkdwn"; text: string };
/** Slack refuses a field over 2,000 characters. */
const field = (label: string, value: string): Field => ({ type: "mrkdwn", text: `*${label}*\n${slackEscape(value.slice(0, 1500))}` });

/** "agent_crash 10, dead_loop 2" (the largest first) */
const countList = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");

function interruptionFields(p: StoredPayload): { icon: string; fields: Field[] } {
  const i = p.interruption ?? {};
  const severity = str(i.severity, "unknown");
  const fields = [field("Severity", severity), field("Type", str(i.interruption_type, "interruption")), field("Agent", str(i.agent_name, "unknown agent"))];
  if (typeof i.session_id === "string" && i.session_id) fields.push(field("Session", i.session_id));
  return { icon: p.event === "interruption.resolved" ? ":white_check_mark:" : (SEVERITY_ICON[severity] ?? ""), fields };
}

function rateFields(p: StoredPayload): { icon: string; fields: Field[] } {
  const fields = [field("Severity", countList(p.by_severity) || "none"), field("Types", countList(p.by_type) || "none")];
  const agents = countList(p.by_agent);
  if (agents) fields.push(field("Agents", agents));
  return { icon: p.event === "rate.resolved" ? ":white_check_mark:" : ":rotating_light:", fields };
}

export function slackPayload(p: StoredPayload) {
  const text = headline(p);
  const { icon, fields } = isRateAlert(p) ? rateFields(p) : interruptionFields(p);
  return {
    // the notification's text is read as mrkdwn too: an agent named "<!channel>" would ping everyone
    text: slackEscape(text),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `${icon} *${slackEscape(text)}*`.trim() } },
      { type: "section", fields },
      { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in SightDesk" }, url: p.url }] },
    ],
  };
}
