// Rate rules and paged fingerprints (issue 15) driven by hand: injected clock, fetch and mail, one
// tick at a time, on a fresh database (SQLite, or PostgreSQL with TEST_DATABASE_URL). Covers the
// fire / once-per-window / resolve cycle with its counts and link, two processes evaluating at
// once, PagerDuty trigger and resolve per fingerprint, email, and refusals that are not retried.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWindow, inboxUrl, rateDecision, topAgents } from "@/lib/alerts/rate";
import { ruled } from "@/lib/alerts/ruled";
import { evaluateRateRules, queuePagedTrigger, rateDue, resolvePagedFingerprints } from "@/lib/alerts/ruleState";
import { createWebhook, getWebhook, updateWebhook, type WebhookInput } from "@/lib/alerts/webhooks";
import { AlertWorker } from "@/lib/alerts/worker";
import type { OutgoingMail } from "@/lib/alerts/mailer";
import { createDb, type Db } from "@/lib/db/client";
import { stringifyExact } from "@/lib/wire/json";
import { createTestDatabase, type TestDatabase } from "../support/database";

const SEC = 1_000_000_000n;
const MIN = 60n * SEC;
let db: Db;
let database: TestDatabase;
let clock = 1_800_000_000n * SEC;
const now = () => clock;
type Sent = { url: string; body: string; headers: Record<string, string> };
const sent: Sent[] = [];
const answers: number[] = [];
const fetchStub = async (url: string, init: RequestInit) => {
  sent.push({ url, body: String(init.body), headers: init.headers as Record<string, string> });
  return new Response('{"status":"success"}', { status: answers.shift() ?? 202 });
};
const mails: OutgoingMail[] = [];
const mailStub = async (m: OutgoingMail) => {
  mails.push(m);
  return { responseCode: 250 };
};
let seq = 0;

beforeAll(async () => {
  database = await createTestDatabase("alertrate");
  db = createDb(database.url);
}, 60_000);
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const worker = (holder = "test-a") => new AlertWorker({ db, now, fetch: fetchStub, mail: mailStub, baseUrl: "https://desk", holder });

async function interruption(fields: { agentName: string; severity?: string; type?: string; fingerprint?: string; occurredAtNs?: bigint; status?: string }) {
  seq += 1;
  const at = fields.occurredAtNs ?? clock;
  return db.interruption.create({
    data: {
      id: `r-${seq}`,
      agentName: fields.agentName,
      type: fields.type ?? "agent_crash",
      severity: fields.severity ?? "critical",
      occurredAtNs: at,
      lastSeenNs: at,
      detail: "{}",
      fingerprint: fields.fingerprint ?? `fp-r-${seq}`,
      status: fields.status ?? "open",
      createdAtNs: clock,
    },
  });
}

const rateHook = (agent: string, over: Partial<WebhookInput> = {}): WebhookInput => ({
  name: `rate ${agent}`, kind: "generic", url: `http://r.invalid/${agent}`, rule: "rate", rate_threshold: 3, rate_window_secs: 600,
  min_severity: "high", types: [], agents: [agent], repeat_interval_secs: 0, enabled: true, ...over,
});

async function tick(w: AlertWorker) {
  await w.tick();
  await w.settle();
}

const bodiesTo = (suffix: string) => sent.filter((s) => s.url.endsWith(suffix)).map((s) => JSON.parse(s.body) as Record<string, unknown>);

describe("rate rules, pure parts", () => {
  const rule = { threshold: 3, windowSecs: 600 };
  it("fires at the threshold, once per window, and resolves below it", () => {
    const quiet = { state: "ok", seq: 0, firedAtNs: null };
    expect(rateDecision(quiet, 2, rule, 1000n * SEC)).toBeNull();
    expect(rateDecision(quiet, 3, rule, 1000n * SEC)).toBe("fire");
    const firing = { state: "firing", seq: 1, firedAtNs: 1000n * SEC };
    expect(rateDecision(firing, 50, rule, 1001n * SEC)).toBeNull();
    expect(rateDecision(firing, 2, rule, 1001n * SEC)).toBe("resolve");
    const resolved = { state: "ok", seq: 1, firedAtNs: 1000n * SEC };
    expect(rateDecision(resolved, 9, rule, 1599n * SEC)).toBeNull(); // within the window of the last fire
    expect(rateDecision(resolved, 9, rule, 1600n * SEC)).toBe("fire");
  });

  it("counts a rule again only when its count may have changed", () => {
    const t = 5000n * SEC;
    const quiet = { state: "ok", firedAtNs: null };
    expect(rateDue(quiet, 600, undefined, 0n, t)).toBe(true); // never counted here
    expect(rateDue(quiet, 600, t - SEC, t - 60n * SEC, t)).toBe(false); // nothing new since
    expect(rateDue(quiet, 600, t - SEC, t - 5n * SEC, t)).toBe(true); // an arrival (within the lookback of late commits)
    expect(rateDue({ state: "firing", firedAtNs: t - 60n * SEC }, 600, t - SEC, 0n, t)).toBe(true); // falls with time alone
    // a fire held back by the last one: counted again once its window has passed, then not
    const held = { state: "ok", firedAtNs: t - 600n * SEC };
    expect(rateDue(held, 600, t - SEC, 0n, t)).toBe(true);
    expect(rateDue(held, 600, t, 0n, t + SEC)).toBe(false);
    expect(rateDue(held, 600, t - 2n * SEC, 0n, t - SEC)).toBe(false);
  });

  it("describes windows and links the inbox filtered as the rule", () => {
    expect([60, 600, 3600, 5400, 90, 86_400].map(describeWindow)).toEqual(["1 min", "10 min", "1 h", "1 h 30 min", "90 s", "24 h"]);
    const from = 1_767_268_800_000_000_000n;
    const url = inboxUrl("https://desk", { minSeverity: "high", types: ["agent_crash", "dead_loop"], agents: ["A b"] }, from, from + 600n * SEC);
    expect(url).toBe(
      "https://desk/inbox?range=custom&from=2026-01-01T12%3A00%3A00.000Z&to=2026-01-01T12%3A10%3A00.000Z&severity=critical%2Chigh&interruption_type=agent_crash%2Cdead_loop&agent_name=A+b&unresolved=false",
    );
    expect(inboxUrl("https://desk", { minSeverity: "low", types: [], agents: [] }, from, from)).not.toMatch(/severity|interruption_type|agent_name/);
  });

  it("names the ten busiest agents and sums the rest", () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({ agent: i === 0 ? null : `a${i}`, count: 20 - i }));
    const top = topAgents(rows);
    expect(Object.keys(top)).toHaveLength(11);
    expect(top["(no agent)"]).toBe(20);
    expect(top["(other agents)"]).toBe(10 + 9);
  });
});

describe("rate rules in the worker", () => {
  it("fires once when the count reaches the threshold, with the counts and a link, and resolves when it falls back", async () => {
    const w = worker();
    clock += SEC;
    const hook = await createWebhook(db, rateHook("R1"), "test");
    clock += SEC;
    await interruption({ agentName: "R1", occurredAtNs: clock - 590n * SEC });
    await interruption({ agentName: "R1", type: "dead_loop", severity: "high", occurredAtNs: clock - 580n * SEC });
    await interruption({ agentName: "R1", severity: "medium" }); // below the rule's severity: not counted
    await interruption({ agentName: "other" }); // another agent
    await tick(w);
    expect(bodiesTo("/R1")).toHaveLength(0);
    const fireAt = clock;
    await interruption({ agentName: "R1", occurredAtNs: clock - 570n * SEC });
    await tick(w);
    const [fired] = bodiesTo("/R1");
    expect(fired).toEqual({
      event: "rate.triggered",
      rule: { id: hook.id, name: "rate R1", min_severity: "high", types: [], agents: ["R1"], threshold: 3, window_secs: 600 },
      count: 3,
      window: { start_ns: Number(fireAt - 600n * SEC), end_ns: Number(fireAt) },
      by_severity: { critical: 2, high: 1 },
      by_type: { agent_crash: 2, dead_loop: 1 },
      by_agent: { R1: 3 },
      firing: { number: 1, since_ns: Number(fireAt), resolved_at_ns: null },
      url: "https://desk/inbox?range=custom&from=2027-01-15T07%3A50%3A02.000Z&to=2027-01-15T08%3A00%3A02.000Z&severity=critical%2Chigh&agent_name=R1&unresolved=false",
    });
    const raw = sent.find((s) => s.url.endsWith("/R1"))!;
    expect(raw.body).toContain(`"end_ns":${fireAt}`); // exact ns
    expect(raw.headers["X-SightDesk-Event"]).toBe("rate.triggered");
    expect((await getWebhook(db, hook.id)).rate_state).toMatchObject({ firing: true, number: 1, fired_at_ns: fireAt, fired_count: 3 });

    // more of the same while firing: nothing new
    await interruption({ agentName: "R1" });
    for (let k = 0; k < 3; k++) await tick(w);
    expect(bodiesTo("/R1")).toHaveLength(1);

    // 35 s later the three early ones have left the window: one left, below 3 → resolved
    clock += 35n * SEC;
    const resolveAt = clock;
    await tick(w);
    await tick(w);
    const bodies = bodiesTo("/R1");
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toMatchObject({
      event: "rate.resolved",
      count: 1,
      by_severity: { critical: 1 },
      firing: { number: 1, since_ns: Number(fireAt), resolved_at_ns: Number(resolveAt) },
    });
    // the resolve links the whole firing: from the window that fired to the resolve
    expect(bodies[1].url).toContain(`from=2027-01-15T07%3A50%3A02.000Z&to=2027-01-15T08%3A00%3A37.000Z`);
    expect((await getWebhook(db, hook.id)).rate_state).toMatchObject({ firing: false, number: 1, resolved_at_ns: resolveAt, resolved_count: 1 });

    // back over the threshold within the window of the last fire: no second fire yet …
    for (let k = 0; k < 3; k++) await interruption({ agentName: "R1" });
    await tick(w);
    expect(bodiesTo("/R1")).toHaveLength(2);
    // … a window after the first fire, still over it: the second firing
    clock = fireAt + 600n * SEC;
    await tick(w);
    expect(bodiesTo("/R1").map((b) => [b.event, (b.firing as { number: number }).number])).toEqual([
      ["rate.triggered", 1],
      ["rate.resolved", 1],
      ["rate.triggered", 2],
    ]);
    const rows = await db.alertDelivery.findMany({ where: { webhookId: hook.id }, orderBy: { createdAtNs: "asc" } });
    expect(rows.map((r) => [r.event, r.status])).toEqual([
      ["rate.triggered", "delivered"],
      ["rate.resolved", "delivered"],
      ["rate.triggered", "delivered"],
    ]);
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("fires once when two processes evaluate the same rule at the same moment", async () => {
    clock += SEC;
    const hook = await createWebhook(db, rateHook("R2", { rate_threshold: 2 }), "test");
    clock += SEC;
    await interruption({ agentName: "R2" });
    await interruption({ agentName: "R2" });
    const hooks = (await db.webhook.findMany({ where: { id: hook.id } })).map(ruled);
    const queued = await Promise.all(Array.from({ length: 4 }, () => evaluateRateRules(db, hooks, clock, "https://desk")));
    expect(queued.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await db.alertDelivery.count({ where: { webhookId: hook.id, event: "rate.triggered" } })).toBe(1);

    // two workers ticking in turn: only the holder of the scan lease evaluates, and nothing is queued twice
    const a = worker("proc-a");
    const b = worker("proc-b");
    for (let k = 0; k < 3; k++) {
      await tick(a);
      await tick(b);
    }
    clock += 20n * 60n * SEC; // both interruptions leave the window; the lease of proc-a has expired
    for (let k = 0; k < 3; k++) {
      await tick(b);
      await tick(a);
    }
    const rows = await db.alertDelivery.findMany({ where: { webhookId: hook.id }, orderBy: { createdAtNs: "asc" } });
    expect(rows.map((r) => r.event)).toEqual(["rate.triggered", "rate.resolved"]);
    expect(bodiesTo("/R2").map((b) => b.event)).toEqual(["rate.triggered", "rate.resolved"]);
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("snoozed (and muted) interruptions do not count", async () => {
    const w = worker();
    clock += 10n * SEC;
    const hook = await createWebhook(db, rateHook("R4", { rate_threshold: 2 }), "test");
    clock += SEC;
    await interruption({ agentName: "R4" });
    await interruption({ agentName: "R4", status: "snoozed" });
    await interruption({ agentName: "R4", status: "snoozed" });
    await tick(w);
    expect(bodiesTo("/R4")).toHaveLength(0);
    await interruption({ agentName: "R4", status: "acknowledged" });
    await tick(w);
    expect(bodiesTo("/R4")).toMatchObject([{ event: "rate.triggered", count: 2 }]);
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("counts an edited rule at once, and a quiet one again within a minute (interruptions woken from a snooze)", async () => {
    const w = worker();
    clock += 10n * SEC;
    const lowered = await createWebhook(db, rateHook("R5", { rate_threshold: 3 }), "test");
    const woken = await createWebhook(db, rateHook("R6", { rate_threshold: 2 }), "test");
    clock += SEC;
    await interruption({ agentName: "R5" });
    await interruption({ agentName: "R5" });
    await interruption({ agentName: "R6" });
    const held = await interruption({ agentName: "R6", status: "snoozed" });
    await tick(w);
    clock += 20n * SEC; // nothing new since (beyond the look-back for late commits)
    await tick(w);
    expect([bodiesTo("/R5"), bodiesTo("/R6")]).toEqual([[], []]);
    // the threshold lowered to the count: fires at the next pass (before, only at the next interruption)
    await updateWebhook(db, lowered.id, { rate_threshold: 2 });
    // and the snoozed one wakes (its snooze ended): the count reaches the threshold with no new interruption
    await db.interruption.update({ where: { id: held.id }, data: { status: "open" } });
    clock += SEC;
    await tick(w);
    expect(bodiesTo("/R5")).toMatchObject([{ event: "rate.triggered", count: 2 }]);
    clock += 60n * SEC;
    await tick(w);
    expect(bodiesTo("/R6")).toMatchObject([{ event: "rate.triggered", count: 2 }]); // before, never
    for (const h of [lowered, woken]) await updateWebhook(db, h.id, { enabled: false });
  });

  it("a rate rule over email and Slack: one message each, rendered for the channel", async () => {
    mails.length = 0;
    const w = worker();
    clock += 10n * SEC; // the scan lease of the last test's workers has expired
    await createWebhook(db, rateHook("R3", { kind: "email", url: undefined, email_to: ["oncall@example.com", "lead@example.com"], rate_threshold: 2 }), "test");
    const slack = await createWebhook(db, rateHook("R3", { name: "slack R3", kind: "slack", url: "http://r.invalid/slack-R3", rate_threshold: 2 }), "test");
    clock += SEC;
    await interruption({ agentName: "R3" });
    await interruption({ agentName: "R3", type: "auth_error", severity: "high" });
    await tick(w);
    expect(mails).toHaveLength(1);
    expect(mails[0].to).toEqual(["oncall@example.com", "lead@example.com"]);
    expect(mails[0].subject).toBe("[SightDesk] [FIRING] rate R3: 2 interruptions in 10 min (at least 2)");
    expect(mails[0].text).toContain("By type:\n  agent_crash: 1\n  auth_error: 1\n");
    const [msg] = bodiesTo("/slack-R3");
    expect(msg.text).toBe("[FIRING] slack R3: 2 interruptions in 10 min (at least 2)");
    expect(JSON.stringify(msg.blocks)).toContain("agent_crash 1, auth_error 1");
    expect(JSON.stringify(msg.blocks)).toContain("https://desk/inbox?range=custom");
    await updateWebhook(db, slack.id, { enabled: false });
  });
});

describe("PagerDuty, per fingerprint", () => {
  it("triggers with the fingerprint as dedup key, resolves when the fingerprint has no unresolved interruption, and triggers again on regression", async () => {
    const w = worker();
    clock += SEC;
    const hook = await createWebhook(db, { name: "pd", kind: "pagerduty", url: "http://pd.invalid/v2/enqueue", routing_key: "R0UTINGKEY0123456789abcdefghijkl", rule: "each", min_severity: "high", types: [], agents: ["P1"], repeat_interval_secs: 0, enabled: true }, "test");
    expect(hook).toMatchObject({ kind: "pagerduty", routing_key_hint: "…ijkl", signed: false, secret: null });
    expect(stringifyExact(hook)).not.toContain("R0UTINGKEY");
    clock += SEC;
    const first = await interruption({ agentName: "P1", fingerprint: "fp-pd" });
    await tick(w);
    const events = () => sent.filter((s) => s.url === "http://pd.invalid/v2/enqueue").map((s) => JSON.parse(s.body) as Record<string, unknown>);
    expect(events()).toHaveLength(1);
    expect(events()[0]).toMatchObject({ routing_key: "R0UTINGKEY0123456789abcdefghijkl", event_action: "trigger", dedup_key: "sightdesk/fingerprint/fp-pd" });
    // a second interruption of the fingerprint: its own trigger, same dedup key (PagerDuty adds it to the open alert)
    const second = await interruption({ agentName: "P1", fingerprint: "fp-pd" });
    await tick(w);
    await tick(w);
    expect(events().map((e) => [e.event_action, e.dedup_key])).toEqual([
      ["trigger", "sightdesk/fingerprint/fp-pd"],
      ["trigger", "sightdesk/fingerprint/fp-pd"],
    ]);
    // one of two resolved: still open
    await db.interruption.update({ where: { id: first.id }, data: { status: "resolved", resolvedAtNs: clock } });
    await tick(w);
    expect(events()).toHaveLength(2);
    clock += SEC;
    await db.interruption.update({ where: { id: second.id }, data: { status: "resolved", resolvedAtNs: clock } });
    await tick(w);
    await tick(w);
    expect(events()).toHaveLength(3);
    expect(events()[2]).toEqual({ routing_key: "R0UTINGKEY0123456789abcdefghijkl", event_action: "resolve", dedup_key: "sightdesk/fingerprint/fp-pd" });
    const resolveRow = await db.alertDelivery.findFirst({ where: { webhookId: hook.id, event: "interruption.resolved" } });
    expect(resolveRow).toMatchObject({ interruptionId: second.id, fingerprint: "fp-pd", status: "delivered" });

    // it comes back: a regression triggers a new alert under the same key
    clock += SEC;
    await interruption({ agentName: "P1", fingerprint: "fp-pd" });
    await tick(w);
    expect(events().map((e) => e.event_action)).toEqual(["trigger", "trigger", "resolve", "trigger"]);
    expect(await db.alertRuleState.findMany({ where: { webhookId: hook.id } })).toMatchObject([{ key: "fp:fp-pd", state: "firing", seq: 3 }]); // a step per trigger
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("does not resolve a fingerprint whose new interruption was paged while another process was deciding to resolve it", async () => {
    const hook = await createWebhook(db, { name: "pd-race", kind: "pagerduty", url: "http://pd.invalid/race", routing_key: "k-race", rule: "each", min_severity: "high", types: [], agents: ["P8"], repeat_interval_secs: 0, enabled: true }, "test");
    await interruption({ agentName: "P8", fingerprint: "fp-race", status: "resolved" }); // paged, then resolved
    await db.alertRuleState.create({ data: { webhookId: hook.id, key: "fp:fp-race", state: "firing", seq: 1, firedAtNs: clock } });
    clock += SEC;
    // this process finds nothing open of the fingerprint; right then a new one arrives and another process pages it
    let arrived = false;
    const racing = new Proxy(db, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop);
        if (prop !== "interruption") return typeof value === "function" ? value.bind(target) : value;
        return new Proxy(value as object, {
          get: (delegate, method) => {
            const fn = Reflect.get(delegate, method) as (...a: unknown[]) => Promise<unknown>;
            if (method !== "findFirst") return typeof fn === "function" ? fn.bind(delegate) : fn;
            return async (args: { where?: { status?: unknown } }) => {
              const found = await fn.call(delegate, args);
              if (!arrived && args.where?.status) {
                arrived = true;
                const fresh = await interruption({ agentName: "P8", fingerprint: "fp-race" });
                await queuePagedTrigger(db, { webhookId: hook.id, event: "interruption.created", dedupeKey: fresh.id, payload: {}, now: clock, interruptionId: fresh.id, fingerprint: "fp-race" });
              }
              return found;
            };
          },
        });
      },
    }) as Db;
    expect(await resolvePagedFingerprints(racing, [ruled((await db.webhook.findUniqueOrThrow({ where: { id: hook.id } })))], clock, "https://desk")).toBe(0);
    expect(arrived).toBe(true);
    // before: the resolve was queued after the new trigger, closing the page while the interruption is open
    expect((await db.alertDelivery.findMany({ where: { webhookId: hook.id } })).map((d) => d.event)).toEqual(["interruption.created"]);
    expect(await db.alertRuleState.findUniqueOrThrow({ where: { webhookId_key: { webhookId: hook.id, key: "fp:fp-race" } } })).toMatchObject({ state: "firing" });
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("resolves a fingerprint however many others are still firing", async () => {
    const w = worker();
    // 200 fingerprints paged about and still open (nobody triages them), then one that is resolved
    // (low: below the webhook's severity, so that the scan leaves them alone — they were paged already)
    const open = Array.from({ length: 200 }, (_, k) => `fp-open-${k}`);
    for (const fp of open) await interruption({ agentName: "P7", fingerprint: fp, severity: "low" });
    const fixed = await interruption({ agentName: "P7", fingerprint: "fp-~fixed", severity: "low", status: "resolved" }); // its key sorts last
    const hook = await createWebhook(db, { name: "pd-many", kind: "pagerduty", url: "http://pd.invalid/many", routing_key: "k-many", rule: "each", min_severity: "high", types: [], agents: ["P7"], repeat_interval_secs: 0, enabled: true }, "test");
    await db.alertRuleState.createMany({ data: [...open, "fp-~fixed"].map((fp) => ({ webhookId: hook.id, key: `fp:${fp}`, state: "firing", seq: 1, firedAtNs: clock })) });
    clock += SEC;
    await tick(w);
    await tick(w);
    // before, every pass looked at the same first 200 firing fingerprints, all open, and never at this one
    const resolves = await db.alertDelivery.findMany({ where: { webhookId: hook.id, event: "interruption.resolved" } });
    expect(resolves.map((d) => [d.fingerprint, d.interruptionId])).toEqual([["fp-~fixed", fixed.id]]);
    expect(await db.alertRuleState.count({ where: { webhookId: hook.id, state: "firing" } })).toBe(200);
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("sends a fingerprint's resolve only after its trigger, however long the trigger's retries take, and whichever process sends", async () => {
    const [a, b] = [worker(), worker("order-b")]; // a scans (it holds the lease), both send
    const hook = await createWebhook(db, { name: "pd-order", kind: "pagerduty", url: "http://pd.invalid/order", routing_key: "k-order", rule: "each", min_severity: "high", types: [], agents: ["P3"], repeat_interval_secs: 0, enabled: true }, "test");
    const events = () => sent.filter((s) => s.url === "http://pd.invalid/order").map((s) => (JSON.parse(s.body) as { event_action: string }).event_action);
    clock += SEC;
    const i = await interruption({ agentName: "P3", fingerprint: "fp-order" });
    answers.push(429); // PagerDuty is busy: the trigger is retried 2 s later
    await tick(a);
    expect(events()).toEqual(["trigger"]);
    clock += SEC;
    await db.interruption.update({ where: { id: i.id }, data: { status: "resolved", resolvedAtNs: clock } });
    await tick(a); // queues the resolve, due now
    await tick(b);
    expect(await db.alertDelivery.count({ where: { webhookId: hook.id, event: "interruption.resolved" } })).toBe(1);
    expect(events()).toEqual(["trigger"]); // before, the resolve went now and the retried trigger opened an alert nothing would close
    clock += 2n * SEC;
    await tick(b); // the trigger's retry
    await tick(a); // then the resolve
    expect(events()).toEqual(["trigger", "trigger", "resolve"]);
    const rows = await db.alertDelivery.findMany({ where: { webhookId: hook.id }, orderBy: { createdAtNs: "asc" } });
    expect(rows.map((r) => [r.event, r.status])).toEqual([["interruption.created", "delivered"], ["interruption.resolved", "delivered"]]);
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("sends the trigger first when one scan queues a fingerprint's trigger and resolve (resolved before it was scanned)", async () => {
    const MS = 1_000_000n;
    // a clock that moves on at every reading, as a real one does
    const w = new AlertWorker({ db, now: () => (clock += MS), fetch: fetchStub, mail: mailStub, baseUrl: "https://desk", holder: "test-a" });
    const hook = await createWebhook(db, { name: "pd-one-scan", kind: "pagerduty", url: "http://pd.invalid/one-scan", routing_key: "k-one", rule: "each", min_severity: "high", types: [], agents: ["P4"], repeat_interval_secs: 0, enabled: true }, "test");
    clock += SEC;
    await interruption({ agentName: "P4", fingerprint: "fp-one-scan", status: "resolved" });
    await tick(w);
    await tick(w);
    const events = sent.filter((x) => x.url === "http://pd.invalid/one-scan").map((x) => (JSON.parse(x.body) as { event_action: string }).event_action);
    expect(events).toEqual(["trigger", "resolve"]); // before, the resolve was stamped with the scan's start and went first
    await updateWebhook(db, hook.id, { enabled: false });
  });

  it("resolves waiting for their triggers' retries do not hold up other alerts, and each goes after its trigger", async () => {
    const w = worker();
    const pd = await createWebhook(db, { name: "pd-storm", kind: "pagerduty", url: "http://pd.invalid/storm", routing_key: "k-storm", rule: "each", min_severity: "high", types: [], agents: ["P5"], repeat_interval_secs: 0, enabled: true }, "test");
    const other = await createWebhook(db, { name: "after-storm", kind: "generic", url: "http://r.invalid/after-storm", rule: "each", min_severity: "high", types: [], agents: ["P6"], repeat_interval_secs: 0, enabled: true }, "test");
    clock += SEC;
    // an incident storm while PagerDuty answers 429: more fingerprints than the worker reads due deliveries at a time (50)
    const storm = [];
    for (let k = 0; k < 55; k++) storm.push(await interruption({ agentName: "P5", fingerprint: `fp-storm-${k}` }));
    for (let k = 0; k < 55; k++) answers.push(429);
    await tick(w); // queues the 55 triggers
    for (let t = 0; t < 40 && (await db.alertDelivery.count({ where: { webhookId: pd.id, attempts: 0 } })) > 0; t++) await tick(w);
    expect(await db.alertDelivery.count({ where: { webhookId: pd.id, status: "pending", attempts: 1 } })).toBe(55); // retried 2 s later
    // all resolved a second later: 55 resolves due now, each waiting for its trigger's retry
    clock += SEC;
    await db.interruption.updateMany({ where: { id: { in: storm.map((i) => i.id) } }, data: { status: "resolved", resolvedAtNs: clock } });
    await tick(w);
    expect(await db.alertDelivery.count({ where: { webhookId: pd.id, event: "interruption.resolved" } })).toBe(55);
    clock += SEC / 2n;
    await interruption({ agentName: "P6" }); // another webhook's alert
    await tick(w);
    await tick(w);
    expect(sent.filter((x) => x.url === "http://r.invalid/after-storm")).toHaveLength(1); // before, never: the waiting resolves filled every read
    // PagerDuty is back: each fingerprint gets its trigger, then its resolve
    clock += 2n * SEC;
    for (let t = 0; t < 80 && (await db.alertDelivery.count({ where: { webhookId: pd.id, status: "pending" } })) > 0; t++) await tick(w);
    const byKey = new Map<string, string[]>();
    for (const x of sent.filter((y) => y.url === "http://pd.invalid/storm")) {
      const e = JSON.parse(x.body) as { event_action: string; dedup_key: string };
      byKey.set(e.dedup_key, [...(byKey.get(e.dedup_key) ?? []), e.event_action]);
    }
    expect(byKey.size).toBe(55);
    for (const actions of byKey.values()) expect(actions).toEqual(["trigger", "trigger", "resolve"]);
    for (const h of [pd, other]) await updateWebhook(db, h.id, { enabled: false });
  }, 60_000);

  it("a 400 from PagerDuty and an SMTP 5xx fail at once; a 429 is retried", async () => {
    const failingMail = async () => {
      throw Object.assign(new Error("550 mailbox unavailable <secret reply>"), { code: "EENVELOPE", responseCode: 550 });
    };
    const w = new AlertWorker({ db, now, fetch: fetchStub, mail: failingMail, baseUrl: "https://desk", holder: "test-a" });
    clock += SEC;
    const pd = await createWebhook(db, { name: "pd400", kind: "pagerduty", url: "http://pd.invalid/400", routing_key: "k", rule: "each", min_severity: "high", types: [], agents: ["P2"], repeat_interval_secs: 0, enabled: true }, "test");
    const mail = await createWebhook(db, { name: "mail550", kind: "email", email_to: ["x@example.com"], rule: "each", min_severity: "high", types: [], agents: ["P2"], repeat_interval_secs: 0, enabled: true }, "test");
    clock += SEC;
    answers.push(400);
    await interruption({ agentName: "P2" });
    await tick(w);
    expect(await db.alertDelivery.findFirst({ where: { webhookId: pd.id } })).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 400, lastError: "HTTP 400" });
    expect(await db.alertDelivery.findFirst({ where: { webhookId: mail.id } })).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 550, lastError: "SMTP 550" });
    answers.push(429);
    await interruption({ agentName: "P2" });
    await tick(w);
    const retried = await db.alertDelivery.findFirst({ where: { webhookId: pd.id, status: "pending" } });
    expect(retried).toMatchObject({ attempts: 1, lastStatusCode: 429 });
    for (const h of [pd, mail]) await updateWebhook(db, h.id, { enabled: false });
  });
});
