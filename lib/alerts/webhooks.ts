// Webhook configuration and delivery history (SPEC §7 alerts, issue 15): what the /api/webhooks
// routes do. A webhook is a rule (each new interruption, or a rate of them) and a channel
// (generic JSON, Slack, PagerDuty, email). Secrets — the signing secret, the PagerDuty routing
// key — are never sent back, except a new signing secret once.
import crypto from "node:crypto";
import { invalid, notFound } from "../domain/errors";
import type { Db, DbTx } from "../db/client";
import type { AlertDelivery, AlertRuleState, Webhook } from "../db/generated/client";
import { raced } from "../db/raced";
import type { Severity } from "../domain/interruptions";
import { nowNs, NS_PER_MS } from "../domain/time";
import { mailtoRecipients, mailtoUrl } from "./channels/email";
import { PAGERDUTY_EVENTS_URL } from "./channels/pagerduty";
import { readPayload } from "./channels/payload";
import { RATE_KEY } from "./ruleState";
import { newWebhookSecret, parseList, type RuleKind, type WebhookKind } from "./rules";

export type WebhookInput = {
  name: string;
  kind: WebhookKind;
  /** generic, slack: the receiver; pagerduty: the Events API endpoint (default PagerDuty's); email: none */
  url?: string;
  /** pagerduty */
  routing_key?: string;
  /** email */
  email_to?: string[];
  /** default: each */
  rule?: RuleKind;
  rate_threshold?: number;
  rate_window_secs?: number;
  min_severity: Severity;
  types: string[];
  agents: string[];
  repeat_interval_secs: number;
  enabled: boolean;
};

export type WebhookPatch = Partial<WebhookInput> & { rotate_secret?: boolean };

/** Where a webhook sends, as the route checks it before storing (outbound policy, SMTP configured). */
export type Destination = { kind: WebhookKind; url: string };
export type WriteOptions = { check?: (d: Destination) => Promise<void> };

/** A routing key shown as its last four characters. */
const hint = (key: string | null) => (key ? `…${key.slice(-4)}` : null);

function rateState(s: AlertRuleState | undefined) {
  if (!s) return null;
  return {
    firing: s.state === "firing",
    number: s.seq,
    fired_at_ns: s.firedAtNs,
    fired_count: s.firedCount,
    resolved_at_ns: s.resolvedAtNs,
    resolved_count: s.resolvedCount,
  };
}

export function webhookRecord(w: Webhook, state?: AlertRuleState) {
  const rule: RuleKind = w.rule === "rate" ? "rate" : "each";
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    kind: w.kind as WebhookKind,
    email_to: w.kind === "email" ? mailtoRecipients(w.url) : [],
    routing_key_hint: w.kind === "pagerduty" ? hint(w.routingKey) : null,
    rule,
    rate_threshold: rule === "rate" ? w.rateThreshold : null,
    rate_window_secs: rule === "rate" ? w.rateWindowSecs : null,
    rate_state: rule === "rate" ? rateState(state) : null,
    min_severity: w.minSeverity as Severity,
    types: parseList(w.types),
    agents: parseList(w.agents),
    repeat_interval_secs: w.repeatIntervalSecs,
    enabled: w.enabled,
    signed: w.kind === "generic" && w.secret !== null,
    created_by: w.createdBy,
    created_at_ns: w.createdAtNs,
    updated_at_ns: w.updatedAtNs,
  };
}

export function deliveryRecord(d: AlertDelivery) {
  const url = readPayload(d.payload).url;
  return {
    id: d.id,
    webhook_id: d.webhookId,
    interruption_id: d.interruptionId,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at_ns: d.status === "pending" ? d.nextAttemptAtNs : null,
    created_at_ns: d.createdAtNs,
    delivered_at_ns: d.deliveredAtNs,
    url: url || null,
  };
}

const uniqueList = (xs: string[]) => [...new Set(xs.map((x) => x.trim()).filter(Boolean))];

export async function findWebhook(db: DbTx, id: string): Promise<Webhook> {
  const w = await db.webhook.findUnique({ where: { id } });
  if (!w) throw notFound("Webhook not found");
  return w;
}

async function rateStates(db: DbTx, ids: string[]): Promise<Map<string, AlertRuleState>> {
  const rows = ids.length ? await db.alertRuleState.findMany({ where: { webhookId: { in: ids }, key: RATE_KEY } }) : [];
  return new Map(rows.map((s) => [s.webhookId, s]));
}

export async function listWebhooks(db: DbTx) {
  const hooks = await db.webhook.findMany({ orderBy: { createdAtNs: "asc" } });
  const states = await rateStates(db, hooks.filter((w) => w.rule === "rate").map((w) => w.id));
  return hooks.map((w) => webhookRecord(w, states.get(w.id)));
}

export async function getWebhook(db: DbTx, id: string) {
  const w = await findWebhook(db, id);
  return webhookRecord(w, (await rateStates(db, [id])).get(id));
}

/** The stored form of a channel and a rule, checked as a whole (400 naming the field that is missing). */
function channelColumns(c: { kind: WebhookKind; url?: string; routing_key?: string | null; email_to?: string[] }) {
  switch (c.kind) {
    case "email": {
      const to = uniqueList(c.email_to ?? []);
      if (!to.length) throw invalid("email_to: give at least one address");
      return { url: mailtoUrl(to), routingKey: null };
    }
    case "pagerduty":
      if (!c.routing_key) throw invalid("routing_key: required for a PagerDuty webhook (the integration key of an Events API v2 integration)");
      return { url: c.url ?? PAGERDUTY_EVENTS_URL, routingKey: c.routing_key };
    default:
      if (!c.url || c.url.startsWith("mailto:")) throw invalid(`url: required for a ${c.kind} webhook`);
      return { url: c.url, routingKey: null };
  }
}

function ruleColumns(r: { rule?: RuleKind; rate_threshold?: number | null; rate_window_secs?: number | null }) {
  if (r.rule !== "rate") return { rule: null, rateThreshold: null, rateWindowSecs: null };
  if (!r.rate_threshold) throw invalid("rate_threshold: required for a rate rule");
  if (!r.rate_window_secs) throw invalid("rate_window_secs: required for a rate rule");
  return { rule: "rate", rateThreshold: r.rate_threshold, rateWindowSecs: r.rate_window_secs };
}

/** Creates a webhook; a generic one gets a signing secret, returned only here. */
export async function createWebhook(db: DbTx, input: WebhookInput, createdBy: string, options: WriteOptions = {}) {
  const channel = channelColumns(input);
  const rule = ruleColumns(input);
  await options.check?.({ kind: input.kind, url: channel.url });
  const now = nowNs();
  const secret = input.kind === "generic" ? newWebhookSecret() : null;
  const row = await db.webhook.create({
    data: {
      id: crypto.randomUUID(),
      name: input.name,
      kind: input.kind,
      ...channel,
      ...rule,
      secret,
      minSeverity: input.min_severity,
      types: JSON.stringify(uniqueList(input.types)),
      agents: JSON.stringify(uniqueList(input.agents)),
      repeatIntervalSecs: input.repeat_interval_secs,
      enabled: input.enabled,
      createdBy,
      createdAtNs: now,
      updatedAtNs: now,
    },
  });
  return { ...webhookRecord(row), secret };
}

/**
 * Changes some fields; `rotate_secret` issues a new signing secret (returned once). A new kind or
 * rule starts from a clean state: what the webhook had fired is forgotten (not resolved).
 */
export async function updateWebhook(db: Db, id: string, patch: WebhookPatch, options: WriteOptions = {}) {
  const current = await findWebhook(db, id);
  const kind = patch.kind ?? (current.kind as WebhookKind);
  const kindChanged = kind !== current.kind;
  // the channel's fields: given ones, else the current ones when the kind stays
  const channel = channelColumns({
    kind,
    url: patch.url ?? (kindChanged || kind === "email" ? undefined : current.url),
    routing_key: patch.routing_key ?? (kindChanged ? null : current.routingKey),
    email_to: patch.email_to ?? (kindChanged ? [] : mailtoRecipients(current.url)),
  });
  const ruleKind: RuleKind = patch.rule ?? (current.rule === "rate" ? "rate" : "each");
  const rule = ruleColumns({
    rule: ruleKind,
    rate_threshold: patch.rate_threshold ?? current.rateThreshold,
    rate_window_secs: patch.rate_window_secs ?? current.rateWindowSecs,
  });
  if (channel.url !== current.url || kindChanged) await options.check?.({ kind, url: channel.url });
  let secret: string | null | undefined;
  if (kind !== "generic") secret = null;
  else if (patch.rotate_secret || current.secret === null) secret = newWebhookSecret();
  const ruleChanged = rule.rule !== current.rule;
  const row = await db.$transaction(async (tx) => {
    if (kindChanged || ruleChanged) await tx.alertRuleState.deleteMany({ where: { webhookId: id } });
    return raced(tx.webhook.update({
      where: { id },
      data: {
        name: patch.name,
        kind,
        ...channel,
        ...rule,
        minSeverity: patch.min_severity,
        types: patch.types ? JSON.stringify(uniqueList(patch.types)) : undefined,
        agents: patch.agents ? JSON.stringify(uniqueList(patch.agents)) : undefined,
        repeatIntervalSecs: patch.repeat_interval_secs,
        enabled: patch.enabled,
        ...(secret !== undefined ? { secret } : {}),
        updatedAtNs: nowNs(),
      },
    }), { missing: "Webhook not found" });
  });
  const state = (await rateStates(db, [id])).get(id);
  // a secret is shown only when it is new
  return { ...webhookRecord(row, state), secret: secret && secret !== current.secret ? secret : null };
}

export async function deleteWebhook(db: Db, id: string) {
  const w = await findWebhook(db, id);
  await raced(
    db.$transaction([
      db.alertDelivery.deleteMany({ where: { webhookId: id } }),
      db.alertRuleState.deleteMany({ where: { webhookId: id } }),
      db.webhook.delete({ where: { id } }),
    ]),
    { missing: "Webhook not found" },
  );
  return webhookRecord(w);
}

export async function listDeliveries(db: DbTx, webhookId: string, limit: number) {
  await findWebhook(db, webhookId);
  const rows = await db.alertDelivery.findMany({ where: { webhookId }, orderBy: [{ createdAtNs: "desc" }, { id: "asc" }], take: limit });
  return rows.map(deliveryRecord);
}

export const msToNs = (ms: number) => BigInt(Math.round(ms)) * NS_PER_MS;
