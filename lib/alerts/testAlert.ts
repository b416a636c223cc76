// "Send test": a sample of what the webhook sends — an interruption alert, or for a rate rule a
// firing with its counts — over its channel now (one attempt, no retries), recorded in its
// history. A PagerDuty test is triggered and resolved at once, so it leaves no open alert behind.
import crypto from "node:crypto";
import type { DbTx } from "../db/client";
import { nowNs } from "../domain/time";
import { stringifyExact } from "../wire/json";
import { serverChannels } from "./channels/server";
import { ratePayload, rateWindow } from "./rate";
import { ruled } from "./ruled";
import { genericPayload } from "./rules";
import { sendAlert, type Channels } from "./send";
import { deliveryRecord, findWebhook } from "./webhooks";

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

/** The test body of a webhook: its rule's kind of alert, with event `webhook.test`. */
function samplePayload(hook: ReturnType<typeof ruled>, now: bigint, base: string) {
  const rule = hook.rate;
  if (!rule) return genericPayload("webhook.test", sampleRecord(now), base);
  const type = rule.types[0] ?? "agent_crash";
  const severity = rule.minSeverity;
  const counts = { count: rule.threshold, bySeverity: { [severity]: rule.threshold }, byType: { [type]: rule.threshold }, byAgent: { [rule.agents[0] ?? "sightdesk-test"]: rule.threshold } };
  const p = ratePayload({ event: "rate.triggered", hook: { id: hook.id, name: hook.name }, rule, counts, window: rateWindow(rule.windowSecs, now), firing: { number: 0, sinceNs: now, resolvedAtNs: null }, base });
  return { ...p, event: "webhook.test" as const, test: true };
}

export async function sendTest(db: DbTx, id: string, channels: Channels = serverChannels()) {
  const w = await findWebhook(db, id);
  const now = nowNs();
  const deliveryId = crypto.randomUUID();
  const payload = stringifyExact(samplePayload(ruled(w), now, channels.baseUrl));
  const item = { id: deliveryId, event: "webhook.test", payload };
  let result = await sendAlert(channels, w, item);
  if (result.ok && w.kind === "pagerduty") {
    const resolved = await sendAlert(channels, w, { ...item, action: "resolve" });
    if (!resolved.ok) result = { ...resolved, error: `the test alert was opened, but resolving it failed: ${resolved.error}` };
  }
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
