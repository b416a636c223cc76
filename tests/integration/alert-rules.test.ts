// Alert rules that count, and channels that page (issue 15), against the real server and real
// receivers: an HTTP server that records what it got (generic webhooks, PagerDuty's Events API
// v2 pointed at it) and an SMTP server started here. A rate rule fires once with its counts and
// a link to the filtered inbox and resolves when the rate falls back; PagerDuty gets trigger and
// resolve per fingerprint and per rule; email arrives as configured; "send test" for each
// channel; what the API refuses (missing channel fields, email without SMTP, private URLs).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifySignature } from "@/lib/alerts/rules";
import { expectError, ingestEvents, nsAgo, request, sleep } from "./support/http";
import { uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";
import { testPostgresUrl } from "../support/database";
import { startSmtpReceiver, type SmtpReceiver } from "../support/smtpReceiver";
import { waitFor } from "../support/waitFor";

type Received = { path: string; headers: http.IncomingHttpHeaders; body: string };
type Hook = {
  id: string;
  name: string;
  url: string;
  kind: string;
  rule: string;
  secret: string | null;
  email_to: string[];
  routing_key_hint: string | null;
  rate_state: { firing: boolean; number: number; fired_count: number; resolved_count: number } | null;
};
type Delivery = { id: string; event: string; status: string; attempts: number; last_status_code: number | null; last_error: string | null; url: string | null };

const PUBLIC_URL = "https://desk.example";
const env = (smtpPort: number) => ({
  SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8",
  SIGHTDESK_PUBLIC_URL: PUBLIC_URL,
  SIGHTDESK_SMTP__HOST: "127.0.0.1",
  SIGHTDESK_SMTP__PORT: String(smtpPort),
  SIGHTDESK_SMTP__USER: "sightdesk",
  SIGHTDESK_SMTP__PASSWORD: "smtp secret",
  SIGHTDESK_SMTP__FROM: "SightDesk <alerts@desk.example>",
});
let server: TestServer;
/** No SMTP configured and no private range allowed. */
let strict: TestServer;
let receiver: http.Server;
let smtp: SmtpReceiver;
let base = "";
const received: Received[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      // PagerDuty's answer to an accepted event
      res.writeHead(202, { "content-type": "application/json" }).end('{"status":"success","message":"Event processed"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  smtp = await startSmtpReceiver();
  server = await startServer(env(smtp.port));
  strict = await startServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await strict?.stop();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
  await smtp?.close();
});

const at = (path: string) => received.filter((r) => r.path === path);
const json = (r: Received) => JSON.parse(r.body) as Record<string, unknown>;

async function createHook(body: Record<string, unknown>, on = server): Promise<Hook> {
  const reply = await request<Hook>(on, "POST", "/api/webhooks", { min_severity: "high", repeat_interval_secs: 0, ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function deliveries(hookId: string): Promise<Delivery[]> {
  const reply = await request<Delivery[]>(server, "GET", `/api/webhooks/${hookId}/deliveries`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** A process_exit with oom: an agent_crash (critical) at `atNs` (default: a second ago). */
const crash = (agent: string, atNs = nsAgo(1000)) => ({ kind: "process_exit", pid: 40_000 + Math.floor(Math.random() * 20_000), agent_name: agent, host: uid("host"), at_ns: atNs, oom: true });

const inboxLink = (agent: string) =>
  new RegExp(`^${PUBLIC_URL.replace(/\./g, "\\.")}/inbox\\?range=custom&from=[^&]+Z&to=[^&]+Z&severity=critical%2Chigh&agent_name=${agent}&unresolved=false$`);

describe("rate rules", () => {
  it("fire once with the counts and a link to the filtered inbox, and resolve when the rate falls back (generic, signed; PagerDuty keyed by the rule)", async () => {
    const agent = uid("StormAgent");
    const rule = { rule: "rate", rate_threshold: 3, rate_window_secs: 60, agents: [agent] };
    const generic = await createHook({ name: "crash storm", url: `${base}/rate/${agent}`, ...rule });
    expect(generic).toMatchObject({ rule: "rate", kind: "generic", rate_state: null });
    const pd = await createHook({ name: "crash storm (pd)", kind: "pagerduty", url: `${base}/pd/${agent}`, routing_key: "PDKEY-rate-0123456789", ...rule });

    // three crashes that occurred 50 s ago: they leave the 60 s window together, about 10 s from now
    const early = nsAgo(50_000);
    await ingestEvents(server, [crash(agent, early), crash(agent, early)]);
    await sleep(1500);
    expect(at(`/rate/${agent}`)).toHaveLength(0); // two: below the threshold
    await ingestEvents(server, [crash(agent, early), crash(`${agent}-other`, early)]);
    const fired = await waitFor("the rate alert", () => at(`/rate/${agent}`)[0]);
    expect(fired.headers["x-sightdesk-event"]).toBe("rate.triggered");
    expect(verifySignature(generic.secret!, fired.body, fired.headers["x-sightdesk-signature"] as string, fired.headers["x-sightdesk-timestamp"] as string)).toBe(true);
    const body = json(fired);
    expect(body).toMatchObject({
      event: "rate.triggered",
      rule: { id: generic.id, name: "crash storm", min_severity: "high", types: [], agents: [agent], threshold: 3, window_secs: 60 },
      count: 3,
      by_severity: { critical: 3 },
      by_type: { agent_crash: 3 },
      by_agent: { [agent]: 3 },
      firing: { number: 1, resolved_at_ns: null },
    });
    expect(fired.body).toMatch(/"window":\{"start_ns":\d{19},"end_ns":\d{19}\}/);
    expect(body.url).toMatch(inboxLink(agent));
    const trigger = json(await waitFor("the PagerDuty trigger", () => at(`/pd/${agent}`)[0]));
    expect(trigger).toMatchObject({
      routing_key: "PDKEY-rate-0123456789",
      event_action: "trigger",
      dedup_key: `sightdesk/rate/${pd.id}`,
      payload: { summary: "[FIRING] crash storm (pd): 3 interruptions in 1 min (at least 3)", source: agent, severity: "critical", class: "interruption rate", group: "crash storm (pd)", custom_details: { count: 3, threshold: 3, window_secs: 60 } },
      client: "SightDesk",
      client_url: PUBLIC_URL,
    });
    expect((trigger.links as { href: string }[])[0].href).toMatch(inboxLink(agent));
    const state = await request<Hook>(server, "GET", `/api/webhooks/${generic.id}`);
    expect(state.body.rate_state).toMatchObject({ firing: true, number: 1, fired_count: 3 });

    // a fourth while firing: no second alert
    await ingestEvents(server, [crash(agent)]);
    await sleep(1500);
    expect(at(`/rate/${agent}`)).toHaveLength(1);

    // the three leave the window: one left, below 3 → resolved, on both channels
    const resolved = json(await waitFor("the resolve", () => at(`/rate/${agent}`)[1], { timeoutMs: 40_000 }));
    expect(resolved).toMatchObject({ event: "rate.resolved", count: 1, firing: { number: 1 } });
    expect(at(`/rate/${agent}`)[1].headers["x-sightdesk-event"]).toBe("rate.resolved");
    expect(json(await waitFor("the PagerDuty resolve", () => at(`/pd/${agent}`)[1]))).toEqual({ routing_key: "PDKEY-rate-0123456789", event_action: "resolve", dedup_key: `sightdesk/rate/${pd.id}` });
    await sleep(1500);
    expect(at(`/rate/${agent}`)).toHaveLength(2);
    expect((await request<Hook>(server, "GET", `/api/webhooks/${generic.id}`)).body.rate_state).toMatchObject({ firing: false, number: 1, resolved_count: 1 });
    const ds = await waitFor("both recorded", async () => {
      const all = await deliveries(generic.id);
      return all.every((d) => d.status === "delivered") ? all : null;
    });
    expect(ds.map((d) => [d.event, d.status])).toEqual([
      ["rate.resolved", "delivered"],
      ["rate.triggered", "delivered"],
    ]);
    expect(ds[1].url).toMatch(inboxLink(agent));
    for (const h of [generic, pd]) await request(server, "POST", `/api/webhooks/${h.id}`, { enabled: false });
  }, 90_000);
});

// Several server processes on one PostgreSQL (SPEC §7): one firing and one resolve, whichever
// process evaluates. (Several processes on one SQLite file are not supported.)
describe.skipIf(!testPostgresUrl())("rate rules with two server processes on one database", () => {
  it("fire once and resolve once", async () => {
    const other = await startServer(env(smtp.port), { databaseUrl: server.databaseUrl });
    try {
      const agent = uid("TwinAgent");
      const path = `/twin/${agent}`;
      await createHook({ name: "twin", url: `${base}${path}`, rule: "rate", rate_threshold: 2, rate_window_secs: 60, agents: [agent] }, other);
      const early = nsAgo(52_000);
      await ingestEvents(server, [crash(agent, early)]);
      await ingestEvents(other, [crash(agent, early)]);
      await waitFor("the firing", () => at(path)[0]);
      await waitFor("the resolve", () => at(path)[1], { timeoutMs: 40_000 });
      await sleep(3000);
      expect(at(path).map((r) => r.headers["x-sightdesk-event"])).toEqual(["rate.triggered", "rate.resolved"]);
      expect(new Set(at(path).map((r) => r.headers["x-sightdesk-delivery"])).size).toBe(2);
    } finally {
      await other.stop(); // its data directory; the shared database stays
    }
  }, 120_000);
});

describe("PagerDuty per interruption", () => {
  it("triggers per fingerprint and resolves when the interruption is resolved in SightDesk", async () => {
    const agent = uid("PagedAgent");
    const path = `/pd/${agent}`;
    const hook = await createHook({ name: "pager", kind: "pagerduty", url: `${base}${path}`, routing_key: "PDKEY-each-abcdefghijkl", agents: [agent] });
    expect(hook).toMatchObject({ kind: "pagerduty", routing_key_hint: "…ijkl", secret: null, url: `${base}${path}` });
    const list = await request(server, "GET", "/api/webhooks");
    expect(list.text).not.toContain("PDKEY-each");

    await ingestEvents(server, [crash(agent)]);
    const trigger = json(await waitFor("the trigger", () => at(path)[0]));
    const record = trigger.payload as { custom_details: { interruption_id: string; fingerprint: string } };
    const { interruption_id: id, fingerprint } = record.custom_details;
    expect(trigger).toMatchObject({
      routing_key: "PDKEY-each-abcdefghijkl",
      event_action: "trigger",
      dedup_key: `sightdesk/fingerprint/${fingerprint}`,
      payload: { summary: `[CRITICAL] agent_crash (new) on ${agent}`, source: agent, severity: "critical", class: "agent_crash", custom_details: { event: "interruption.created", agent_name: agent } },
      links: [{ href: `${PUBLIC_URL}/interruptions/${id}`, text: "Open in SightDesk" }],
      client: "SightDesk",
      client_url: PUBLIC_URL,
    });
    expect(at(path)[0].body).toMatch(/"occurred_at_ns":\d{19}/);

    const resolve = await request(server, "POST", `/api/interruptions/${id}/resolve`, {});
    expect(resolve.status, resolve.text).toBe(200);
    const closed = json(await waitFor("the resolve", () => at(path)[1]));
    expect(closed).toEqual({ routing_key: "PDKEY-each-abcdefghijkl", event_action: "resolve", dedup_key: `sightdesk/fingerprint/${fingerprint}` });
    expect((await deliveries(hook.id)).map((d) => d.event)).toEqual(["interruption.resolved", "interruption.created"]);
    await request(server, "POST", `/api/webhooks/${hook.id}`, { enabled: false });
  });
});

describe("email", () => {
  it("sends an interruption alert through the configured SMTP server, logged in, to the recipients", async () => {
    const agent = uid("MailAgent");
    const to = [`oncall-${agent.toLowerCase()}@example.com`, "lead@example.com"];
    const hook = await createHook({ name: "mail", kind: "email", email_to: to, agents: [agent] });
    expect(hook).toMatchObject({ kind: "email", email_to: to, url: `mailto:${to.join(",")}`, secret: null });
    await ingestEvents(server, [crash(agent)]);
    const mail = await waitFor("the email", () => smtp.mails.find((m) => m.to.includes(to[0])));
    expect(mail).toMatchObject({ from: "alerts@desk.example", to, user: "sightdesk" });
    expect(smtp.auths).toContainEqual({ username: "sightdesk", password: "smtp secret" });
    expect(mail.headers).toMatchObject({
      from: "SightDesk <alerts@desk.example>",
      subject: `[SightDesk] [CRITICAL] agent_crash (new) on ${agent}`,
      "x-sightdesk-event": "interruption.created",
    });
    // the server records the outcome after the SMTP server has the message
    const d = await waitFor("the delivery recorded", async () => (await deliveries(hook.id)).find((x) => x.status === "delivered"));
    expect(mail.headers["message-id"]).toBe(`<${d.id}@sightdesk>`);
    expect(d).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 250 });
    const lines = mail.text.split("\n");
    expect(lines.slice(0, 6)).toEqual([`[CRITICAL] agent_crash (new) on ${agent}`, "", "Severity:    critical", "Type:        agent_crash", `Agent:       ${agent}`, expect.stringMatching(/^Occurred:    \d{4}-\d\d-\d\dT/)]);
    expect(mail.text).toMatch(new RegExp(`Open in SightDesk: ${PUBLIC_URL.replace(/\./g, "\\.")}/interruptions/[0-9a-f]{32}\\n`));
    await request(server, "POST", `/api/webhooks/${hook.id}`, { enabled: false });
  });
});

describe("send test", () => {
  it("PagerDuty: a test alert, resolved at once; email: a test message; a rate rule: a sample with counts", async () => {
    const pd = await createHook({ name: "pd test", kind: "pagerduty", url: `${base}/pd-test`, routing_key: "PDKEY-test" });
    const reply = await request<{ ok: boolean; status_code: number; delivery: Delivery }>(server, "POST", `/api/webhooks/${pd.id}/test`);
    expect(reply.body).toMatchObject({ ok: true, status_code: 202, delivery: { event: "webhook.test", status: "delivered" } });
    const [trigger, resolve] = at("/pd-test").map(json);
    expect(trigger).toMatchObject({ routing_key: "PDKEY-test", event_action: "trigger", dedup_key: `sightdesk/test/${reply.body.delivery.id}`, payload: { severity: "info" } });
    expect(resolve).toEqual({ routing_key: "PDKEY-test", event_action: "resolve", dedup_key: `sightdesk/test/${reply.body.delivery.id}` });

    const mail = await createHook({ name: "mail test", kind: "email", email_to: ["test-recipient@example.com"] });
    const sent = await request<{ ok: boolean; status_code: number }>(server, "POST", `/api/webhooks/${mail.id}/test`);
    expect(sent.body).toMatchObject({ ok: true, status_code: 250 });
    const msg = smtp.mails.find((m) => m.to.includes("test-recipient@example.com"));
    expect(msg?.headers.subject).toBe("[SightDesk] [CRITICAL] agent_crash (test alert) on sightdesk-test");

    const rate = await createHook({ name: "rate test", url: `${base}/rate-test`, rule: "rate", rate_threshold: 10, rate_window_secs: 300, types: ["dead_loop"] });
    expect((await request<{ ok: boolean }>(server, "POST", `/api/webhooks/${rate.id}/test`)).body.ok).toBe(true);
    expect(json(at("/rate-test")[0])).toMatchObject({ event: "webhook.test", test: true, count: 10, by_type: { dead_loop: 10 }, rule: { threshold: 10, window_secs: 300 } });
    for (const h of [pd, mail, rate]) await request(server, "DELETE", `/api/webhooks/${h.id}`);
  });
});

describe("what the API refuses", () => {
  it("names the missing field of a channel or a rule", async () => {
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", kind: "pagerduty" }), 400, /routing_key/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", kind: "email" }), 400, /email_to/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", kind: "email", email_to: ["not an address"] }), 400, /email_to/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", kind: "email", email_to: ["a@example.com"], url: `${base}/x` }), 400, /url/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", kind: "generic" }), 400, /url/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", url: `${base}/x`, rule: "rate", rate_window_secs: 60 }), 400, /rate_threshold/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", url: `${base}/x`, rule: "rate", rate_threshold: 3, rate_window_secs: 10 }), 400, /rate_window_secs/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", url: `${base}/x`, rule: "sometimes" }), 400, /rule/);
    // changing the kind needs the new kind's fields
    const hook = await createHook({ name: "switch", url: `${base}/switch`, enabled: false });
    expectError(await request(server, "POST", `/api/webhooks/${hook.id}`, { kind: "pagerduty" }), 400, /routing_key/);
    const switched = await request<Hook>(server, "POST", `/api/webhooks/${hook.id}`, { kind: "pagerduty", routing_key: "PDKEY-switch", url: `${base}/switch-pd` });
    expect(switched.body).toMatchObject({ kind: "pagerduty", routing_key_hint: "…itch", url: `${base}/switch-pd` });
    const toRate = await request<Hook>(server, "POST", `/api/webhooks/${hook.id}`, { rule: "rate", rate_threshold: 5, rate_window_secs: 600 });
    expect(toRate.body).toMatchObject({ rule: "rate", kind: "pagerduty" });
    await request(server, "DELETE", `/api/webhooks/${hook.id}`);
  });

  it("email without SMTP configured, and a PagerDuty endpoint at a private address without the allow list", async () => {
    expectError(await request(strict, "POST", "/api/webhooks", { name: "x", kind: "email", email_to: ["a@example.com"] }), 400, /^kind: email alerts need smtp\.host and smtp\.from/);
    expectError(await request(strict, "POST", "/api/webhooks", { name: "x", kind: "pagerduty", routing_key: "k", url: `${base}/pd` }), 400, /^url: 127\.0\.0\.1 is a loopback address/);
    expect((await request<Hook[]>(strict, "GET", "/api/webhooks")).body).toEqual([]);
  });

  it("the OpenAPI document describes rules and channels", async () => {
    const doc = await request<{ paths: Record<string, Record<string, unknown>> }>(server, "GET", "/api/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.text).toContain("rate_threshold");
    expect(doc.text).toContain("routing_key");
    expect(doc.text).toContain("email_to");
    expect(doc.body.paths["/api/webhooks/{id}"]).toHaveProperty("get");
  });
});
