// Webhook configuration and delivery history (SPEC §7 alerts): what the /api/webhooks routes do.
import crypto from "node:crypto";
import { notFound } from "../domain/errors";
import { stringifyExact } from "../wire/json";
import type { Db, DbTx } from "../db/client";
import type { AlertDelivery, Webhook } from "../db/generated/client";
import type { Severity } from "../domain/interruptions";
import { nowNs, NS_PER_MS } from "../domain/time";
import { genericPayload, newWebhookSecret, parseList, publicBaseUrl, type WebhookKind } from "./rules";
import { outboundFetch } from "../config/outbound";
import { sendOnce, type FetchLike } from "./send";

export type WebhookInput = {
  name: string;
  url: string;
  kind: WebhookKind;
  min_severity: Severity;
  types: string[];
  agents: string[];
  repeat_interval_secs: number;
  enabled: boolean;
};

export function webhookRecord(w: Webhook) {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    kind: w.kind as WebhookKind,
    min_severity: w.minSeverity as Severity,
    types: parseList(w.types),
    agents: parseList(w.agents),
    repeat_interval_secs: w.repeatIntervalSecs,
    enabled: w.enabled,
    signed: w.secret !== null,
    created_by: w.createdBy,
    created_at_ns: w.createdAtNs,
    updated_at_ns: w.updatedAtNs,
  };
}

export function deliveryRecord(d: AlertDelivery) {
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
  };
}

const uniqueList = (xs: string[]) => [...new Set(xs.map((x) => x.trim()).filter(Boolean))];

async function findWebhook(db: DbTx, id: string): Promise<Webhook> {
  const w = await db.webhook.findUnique({ where: { id } });
  if (!w) throw notFound("Webhook not found");
  return w;
}

export async function listWebhooks(db: DbTx) {
  return (await db.webhook.findMany({ orderBy: { createdAtNs: "asc" } })).map(webhookRecord);
}

/** Creates a webhook; a generic one gets a signing secret, returned only here. */
export async function createWebhook(db: DbTx, input: WebhookInput, createdBy: string) {
  const now = nowNs();
  const secret = input.kind === "generic" ? newWebhookSecret() : null;
  const row = await db.webhook.create({
    data: {
      id: crypto.randomUUID(),
      name: input.name,
      url: input.url,
      kind: input.kind,
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

/** Changes some fields; `rotate_secret` issues a new signing secret (returned once). */
export async function updateWebhook(db: DbTx, id: string, patch: Partial<WebhookInput> & { rotate_secret?: boolean }) {
  const current = await findWebhook(db, id);
  const kind = patch.kind ?? (current.kind as WebhookKind);
  let secret: string | null | undefined;
  if (kind === "slack") secret = null;
  else if (patch.rotate_secret || current.secret === null) secret = newWebhookSecret();
  const row = await db.webhook.update({
    where: { id },
    data: {
      name: patch.name,
      url: patch.url,
      kind: patch.kind,
      minSeverity: patch.min_severity,
      types: patch.types ? JSON.stringify(uniqueList(patch.types)) : undefined,
      agents: patch.agents ? JSON.stringify(uniqueList(patch.agents)) : undefined,
      repeatIntervalSecs: patch.repeat_interval_secs,
      enabled: patch.enabled,
      ...(secret !== undefined ? { secret } : {}),
      updatedAtNs: nowNs(),
    },
  });
  // a secret is shown only when it is new
  return { ...webhookRecord(row), secret: secret ?? null };
}

export async function deleteWebhook(db: Db, id: string) {
  const w = await findWebhook(db, id);
  await db.$transaction([db.alertDelivery.deleteMany({ where: { webhookId: id } }), db.webhook.delete({ where: { id } })]);
  return webhookRecord(w);
}

export async function listDeliveries(db: DbTx, webhookId: string, limit: number) {
  await findWebhook(db, webhookId);
  const rows = await db.alertDelivery.findMany({ where: { webhookId }, orderBy: [{ createdAtNs: "desc" }, { id: "asc" }], take: limit });
  return rows.map(deliveryRecord);
}

/** A sample record for test deliveries: the shape of a real one, clearly marked as a test. */
function sampleRecord(now: bigint) {
  return {
    interruption_id: "test",
    session_id: null,
    trace_id: null,
    conversation_id: null,
    call_id: null,
    pid: null,
    agent_name: "sightdesk-test",
    interruption_type: "agent_crash",
    severity: "critical",
    occurred_at_ns: now,
    detail: JSON.stringify({ test: true, message: "A test alert from SightDesk settings" }),
    resolved: false,
    status: "open",
    assignee: null,
    acknowledged_by: null,
    resolved_by: null,
    resolved_at_ns: null,
    occurrences: 1,
    last_seen_ns: now,
    fingerprint: "test",
  };
}

/** Sends a test alert now (one attempt, no retries) and records it in the webhook's history. */
export async function sendTest(db: DbTx, id: string, fetchImpl: FetchLike = outboundFetch()) {
  const w = await findWebhook(db, id);
  const now = nowNs();
  const deliveryId = crypto.randomUUID();
  const payload = stringifyExact(genericPayload("webhook.test", sampleRecord(now), publicBaseUrl()));
  const result = await sendOnce(fetchImpl, w, { id: deliveryId, event: "webhook.test", payload });
  const done = nowNs();
  const row = await db.alertDelivery.create({
    data: {
      id: deliveryId,
      webhookId: w.id,
      event: "webhook.test",
      dedupeKey: `test:${deliveryId}`,
      status: result.ok ? "delivered" : "failed",
      attempts: 1,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      nextAttemptAtNs: now,
      createdAtNs: now,
      deliveredAtNs: result.ok ? done : null,
      payload,
    },
  });
  return { ok: result.ok, status_code: result.statusCode, error: result.error, duration_ms: result.durationMs, delivery: deliveryRecord(row) };
}

export const msToNs = (ms: number) => BigInt(Math.round(ms)) * NS_PER_MS;
