// The channels (issue 15): the exact PagerDuty Events API v2 bodies (trigger / resolve, dedup
// key per fingerprint or rule), the email (subject, text, headers), Slack's rate message, and
// the SMTP sender against a real SMTP server (credentials, envelope, refusal, a silent server).
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailMessage, mailtoRecipients, mailtoUrl } from "@/lib/alerts/channels/email";
import { PAGERDUTY_EVENTS_URL, pagerDutyEvent } from "@/lib/alerts/channels/pagerduty";
import { readPayload } from "@/lib/alerts/channels/payload";
import { slackPayload } from "@/lib/alerts/channels/slack";
import { replyCode, smtpMailer } from "@/lib/alerts/mailer";
import { ratePayload } from "@/lib/alerts/rate";
import { genericPayload } from "@/lib/alerts/rules";
import { renderRequest, sendAlert } from "@/lib/alerts/send";
import type { SmtpConfig } from "@/lib/config/load";
import { stringifyExact } from "@/lib/wire/json";
import { startSmtpReceiver, type SmtpReceiver } from "../support/smtpReceiver";

const SEC = 1_000_000_000n;
const AT = 1_767_268_800_123_456_789n; // 2026-01-01T12:00:00.123456789Z
const record = {
  interruption_id: "i-1",
  session_id: "s-1",
  agent_name: "Claude",
  interruption_type: "agent_crash",
  severity: "critical",
  occurred_at_ns: AT,
  detail: '{"exit_code":137}',
  occurrences: 2,
  fingerprint: "fp1",
};
const created = stringifyExact(genericPayload("interruption.created", record, "https://desk"));
const rule = { minSeverity: "high" as const, types: ["agent_crash", "dead_loop"], agents: ["Claude"], threshold: 5, windowSecs: 600 };
const counts = { count: 7, bySeverity: { critical: 5, high: 2 }, byType: { agent_crash: 5, dead_loop: 2 }, byAgent: { Claude: 7 } };
const window = { startNs: AT - 600n * SEC, endNs: AT };
const hook = { id: "w-1", name: "crash storm" };
const triggered = stringifyExact(ratePayload({ event: "rate.triggered", hook, rule, counts, window, firing: { number: 1, sinceNs: AT, resolvedAtNs: null }, base: "https://desk" }));
const resolved = stringifyExact(
  ratePayload({ event: "rate.resolved", hook, rule, counts: { count: 1, bySeverity: { high: 1 }, byType: { dead_loop: 1 }, byAgent: { Claude: 1 } }, window: { startNs: AT, endNs: AT + 600n * SEC }, firing: { number: 1, sinceNs: AT, resolvedAtNs: AT + 600n * SEC }, base: "https://desk" }),
);
const pd = { routingKey: "rk-123", deliveryId: "d-1", baseUrl: "https://desk" };

describe("PagerDuty Events API v2", () => {
  it("an interruption triggers an alert keyed by its fingerprint, with the record in custom_details (exact ns)", () => {
    const body = stringifyExact(pagerDutyEvent(readPayload(created), pd));
    expect(body).toContain('"occurred_at_ns":1767268800123456789');
    const event = JSON.parse(body);
    expect({ ...event, payload: { ...event.payload, custom_details: undefined } }).toEqual({
      routing_key: "rk-123",
      event_action: "trigger",
      dedup_key: "sightdesk/fingerprint/fp1",
      payload: {
        summary: "[CRITICAL] agent_crash (new) on Claude",
        source: "Claude",
        severity: "critical",
        timestamp: "2026-01-01T12:00:00.123Z",
        class: "agent_crash",
      },
      links: [{ href: "https://desk/interruptions/i-1", text: "Open in SightDesk" }],
      client: "SightDesk",
      client_url: "https://desk",
    });
    expect(event.payload.custom_details).toMatchObject({ event: "interruption.created", interruption_id: "i-1", session_id: "s-1", detail: '{"exit_code":137}', occurrences: 2 });
  });

  it("maps severities to PagerDuty's four", () => {
    for (const [ours, theirs] of [["critical", "critical"], ["high", "error"], ["medium", "warning"], ["low", "info"]]) {
      const p = readPayload(stringifyExact(genericPayload("interruption.regressed", { ...record, severity: ours }, "https://desk")));
      expect(pagerDutyEvent(p, pd)).toMatchObject({ payload: { severity: theirs, summary: `[${ours.toUpperCase()}] agent_crash (regressed) on Claude` } });
    }
  });

  it("a resolved fingerprint is a resolve with the same key and nothing else", () => {
    const p = readPayload(stringifyExact({ event: "interruption.resolved", fingerprint: "fp1", interruption: record, url: "https://desk/interruptions/i-1" }));
    expect(pagerDutyEvent(p, pd)).toEqual({ routing_key: "rk-123", event_action: "resolve", dedup_key: "sightdesk/fingerprint/fp1" });
  });

  it("a rate rule triggers and resolves one alert keyed by the rule, with the counts", () => {
    const event = JSON.parse(stringifyExact(pagerDutyEvent(readPayload(triggered), pd)));
    expect(event).toEqual({
      routing_key: "rk-123",
      event_action: "trigger",
      dedup_key: "sightdesk/rate/w-1",
      payload: {
        summary: "[FIRING] crash storm: 7 interruptions in 10 min (at least 5)",
        source: "Claude",
        severity: "critical",
        timestamp: "2026-01-01T12:00:00.123Z",
        component: "agent_crash, dead_loop",
        group: "crash storm",
        class: "interruption rate",
        custom_details: {
          count: 7,
          threshold: 5,
          window_secs: 600,
          by_severity: { critical: 5, high: 2 },
          by_type: { agent_crash: 5, dead_loop: 2 },
          by_agent: { Claude: 7 },
          window: { start_ns: Number(AT - 600n * SEC), end_ns: Number(AT) },
          firing: { number: 1, since_ns: Number(AT), resolved_at_ns: null },
        },
      },
      links: [
        {
          href: "https://desk/inbox?range=custom&from=2026-01-01T11%3A50%3A00.123Z&to=2026-01-01T12%3A00%3A00.123Z&severity=critical%2Chigh&interruption_type=agent_crash%2Cdead_loop&agent_name=Claude&unresolved=false",
          text: "Open in SightDesk",
        },
      ],
      client: "SightDesk",
      client_url: "https://desk",
    });
    expect(pagerDutyEvent(readPayload(resolved), pd)).toEqual({ routing_key: "rk-123", event_action: "resolve", dedup_key: "sightdesk/rate/w-1" });
  });

  it("a test is an info alert of its own, resolved by the same key", () => {
    const test = readPayload(stringifyExact(genericPayload("webhook.test", record, "https://desk")));
    expect(pagerDutyEvent(test, pd)).toMatchObject({ event_action: "trigger", dedup_key: "sightdesk/test/d-1", payload: { severity: "info" } });
    expect(pagerDutyEvent(test, { ...pd, action: "resolve" })).toEqual({ routing_key: "rk-123", event_action: "resolve", dedup_key: "sightdesk/test/d-1" });
    expect(PAGERDUTY_EVENTS_URL).toBe("https://events.pagerduty.com/v2/enqueue");
  });

  it("is POSTed as JSON without a signature; 400 is not retried, 429 and 5xx are; no routing key fails at once", async () => {
    const target = { url: "http://pd.invalid/enqueue", kind: "pagerduty", secret: null, routingKey: "rk-123" };
    const item = { id: "d-1", event: "interruption.created", payload: created };
    const { body, headers } = renderRequest(target, item, Date.now(), "https://desk");
    expect(JSON.parse(body).routing_key).toBe("rk-123");
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["X-SightDesk-Signature"]).toBeUndefined();
    const via = (status: number) => ({ fetch: async () => new Response("{}", { status }), baseUrl: "https://desk" });
    expect(await sendAlert(via(202), target, item)).toMatchObject({ ok: true, statusCode: 202 });
    expect(await sendAlert(via(400), target, item)).toMatchObject({ ok: false, statusCode: 400, error: "HTTP 400", retryable: false });
    expect((await sendAlert(via(429), target, item)).retryable).toBeUndefined();
    expect((await sendAlert(via(503), target, item)).retryable).toBeUndefined();
    expect(await sendAlert(via(202), { ...target, routingKey: null }, item)).toMatchObject({ ok: false, error: "no routing key", retryable: false });
  });
});

describe("email", () => {
  it("an interruption: a subject that says what happened, the facts and the link in plain text", () => {
    const m = emailMessage(readPayload(created), "d-1");
    expect(m.subject).toBe("[SightDesk] [CRITICAL] agent_crash (new) on Claude");
    expect(m.text).toBe(
      [
        "[CRITICAL] agent_crash (new) on Claude",
        "",
        "Severity:    critical",
        "Type:        agent_crash",
        "Agent:       Claude",
        "Session:     s-1",
        "Occurred:    2026-01-01T12:00:00.123Z",
        "Occurrences: 2",
        "",
        "Open in SightDesk: https://desk/interruptions/i-1",
        "",
        "--",
        "Sent by SightDesk alerting. Change or stop these emails in Settings, Alert webhooks.",
        "",
      ].join("\n"),
    );
    expect(m.messageId).toBe("<d-1@sightdesk>");
    expect(m.headers).toEqual({ "X-SightDesk-Event": "interruption.created", "X-SightDesk-Delivery": "d-1" });
  });

  it("a rate rule: the rule, the count, the window and the counts by severity, type and agent", () => {
    const m = emailMessage(readPayload(triggered), "d-2");
    expect(m.subject).toBe("[SightDesk] [FIRING] crash storm: 7 interruptions in 10 min (at least 5)");
    expect(m.text).toContain(
      [
        "Rule:        crash storm: at least 5 interruptions within 10 min",
        "Now:         7 interruptions in 10 min (at least 5)",
        "Window:      2026-01-01T11:50:00.123Z to 2026-01-01T12:00:00.123Z",
        "",
        "By severity:",
        "  critical: 5",
        "  high: 2",
        "",
        "By type:",
        "  agent_crash: 5",
        "  dead_loop: 2",
        "",
        "By agent:",
        "  Claude: 7",
        "",
        "Open the inbox: https://desk/inbox?range=custom&from=2026-01-01T11%3A50%3A00.123Z",
      ].join("\n"),
    );
    const r = emailMessage(readPayload(resolved), "d-3");
    expect(r.subject).toBe("[SightDesk] [RESOLVED] crash storm: 1 interruption in 10 min (at least 5)");
    expect(r.text).toContain("Firing:      2026-01-01T12:00:00.123Z to 2026-01-01T12:10:00.123Z");
  });

  it("untrusted names cannot add headers or lines to the subject", () => {
    const evil = stringifyExact(genericPayload("interruption.created", { ...record, agent_name: "x\r\nBcc: victim@example.com" }, "https://desk"));
    const m = emailMessage(readPayload(evil), "d-4");
    expect(m.subject).toBe("[SightDesk] [CRITICAL] agent_crash (new) on x Bcc: victim@example.com");
    expect(m.subject).not.toMatch(/[\r\n]/);
  });

  it("keeps its recipients as a mailto: URL", () => {
    const url = mailtoUrl(["oncall@example.com", "a+b@example.org"]);
    expect(url).toBe("mailto:oncall@example.com,a%2Bb@example.org");
    expect(mailtoRecipients(url)).toEqual(["oncall@example.com", "a+b@example.org"]);
    expect(mailtoRecipients("https://x")).toEqual([]);
  });
});

describe("Slack, rate rules", () => {
  it("names the rule and the counts, escaping untrusted text", () => {
    const p = readPayload(triggered.replace('"name":"crash storm"', '"name":"<!channel> storm"'));
    const msg = slackPayload(p);
    expect(msg.text).toBe("[FIRING] &lt;!channel&gt; storm: 7 interruptions in 10 min (at least 5)"); // the notification text is escaped too
    const blocks = JSON.stringify(msg.blocks);
    expect(blocks).toContain("&lt;!channel&gt; storm");
    expect(blocks).not.toContain("<!channel>");
    expect(blocks).toContain("critical 5, high 2");
    expect(blocks).toContain("agent_crash 5, dead_loop 2");
    expect(slackPayload(readPayload(resolved)).text).toBe("[RESOLVED] crash storm: 1 interruption in 10 min (at least 5)");
  });
});

describe("the SMTP sender", () => {
  let smtp: SmtpReceiver;
  let silent: net.Server;
  let silentPort = 0;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    // accepts connections and never greets
    silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await smtp?.close();
    await new Promise((r) => silent?.close(r));
  });
  const config = (over: Partial<SmtpConfig> = {}): SmtpConfig => ({ host: "127.0.0.1", port: smtp.port, secure: false, user: "alerts", password: "p@ss word", from: "SightDesk <alerts@desk.example>", ...over });
  const target = (to: string[]) => ({ url: mailtoUrl(to), kind: "email", secret: null });
  const item = { id: "d-9", event: "interruption.created", payload: created };

  it("is off without smtp.host or smtp.from", () => {
    expect(smtpMailer(config({ host: null }))).toBeNull();
    expect(smtpMailer(config({ from: null }))).toBeNull();
    expect(replyCode("250 2.0.0 Ok: queued")).toBe(250);
  });

  it("logs in, sends from smtp.from to the recipients, with the subject, text and headers", async () => {
    const r = await sendAlert({ fetch: fetch, mail: smtpMailer(config()), baseUrl: "https://desk" }, target(["oncall@example.com", "lead@example.com"]), item);
    expect(r).toMatchObject({ ok: true, statusCode: 250, error: null });
    expect(smtp.auths).toEqual([{ username: "alerts", password: "p@ss word" }]);
    const [mail] = smtp.mails;
    expect(mail).toMatchObject({ from: "alerts@desk.example", to: ["oncall@example.com", "lead@example.com"], user: "alerts" });
    expect(mail.headers).toMatchObject({
      from: "SightDesk <alerts@desk.example>",
      to: "oncall@example.com, lead@example.com",
      subject: "[SightDesk] [CRITICAL] agent_crash (new) on Claude",
      "message-id": "<d-9@sightdesk>",
      "x-sightdesk-event": "interruption.created",
      "x-sightdesk-delivery": "d-9",
    });
    expect(mail.text).toBe(emailMessage(readPayload(created), "d-9").text);
  });

  it("a refused recipient is recorded by its reply code only (5xx: not retried)", async () => {
    smtp.refuse.add("gone@example.com");
    const r = await sendAlert({ fetch: fetch, mail: smtpMailer(config({ user: null })), baseUrl: "https://desk" }, target(["gone@example.com"]), item);
    expect(r).toMatchObject({ ok: false, statusCode: 550, error: "SMTP 550", retryable: false });
    expect(JSON.stringify(r)).not.toContain("secret reply");
  });

  it("a server that never answers is cut off by the timeout; nothing configured fails at once", async () => {
    const mail = smtpMailer(config({ port: silentPort, user: null }));
    const r = await sendAlert({ fetch: fetch, mail, baseUrl: "https://desk" }, target(["x@example.com"]), item, 300);
    expect(r).toMatchObject({ ok: false, statusCode: null });
    expect(r.error).toMatch(/^(timed out after 300 ms|request failed \(ETIMEDOUT\))$/);
    expect(await sendAlert({ fetch: fetch, mail: null, baseUrl: "" }, target(["x@example.com"]), item)).toMatchObject({
      ok: false,
      error: "email is not configured (smtp.host, smtp.from)",
      retryable: false,
    });
  });
});
