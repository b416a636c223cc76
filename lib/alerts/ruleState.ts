// What webhooks have fired and not yet resolved (AlertRuleState), and the alerts that change it:
//  - a rate rule fires when its count reaches the threshold (at most once per window) and
//    resolves when the count falls below it again;
//  - a fingerprint paged through PagerDuty is firing from its trigger until it has no
//    unresolved interruption left, then resolved.
// Run by the holder of the `alerts.scan` lease. Each change is a conditional update on the
// state and its number, in one transaction with the delivery it queues: a change that another
// process made first updates no row and queues nothing, so each fire and each resolve is sent
// once, and never one without the other.
import type { Db } from "../db/client";
import type { AlertRuleState } from "../db/generated/client";
import { execute } from "../coordination/sql";
import { interruptionRecord } from "../wire/records";
import { alertable, ruleWhere } from "./candidates";
import { deliveryRow, type QueuedAlert } from "./queue";
import { rateDecision, ratePayload, rateWindow, topAgents, type RateCounts } from "./rate";
import type { RuledHook } from "./ruled";
import { interruptionUrl } from "./rules";

export const RATE_KEY = "rate";
export const fingerprintKey = (fingerprint: string) => `fp:${fingerprint}`;
/** Firing fingerprints looked at per webhook and pass (the rest on the next). */
const RESOLVE_BATCH = 200;

/** The state row of (webhook, key), created quiet when there is none. */
async function stateOf(db: Db, webhookId: string, key: string): Promise<AlertRuleState> {
  await execute(db, `INSERT INTO "AlertRuleState" ("webhookId", "key", "state", "seq") VALUES (?, ?, 'ok', 0) ON CONFLICT DO NOTHING`, [webhookId, key]);
  return db.alertRuleState.findUniqueOrThrow({ where: { webhookId_key: { webhookId, key } } });
}

type Change = Partial<Pick<AlertRuleState, "state" | "seq" | "firedAtNs" | "resolvedAtNs" | "firedCount" | "resolvedCount">>;

/** Moves the state on from `from` (as read) and queues `alert`, both or neither; false when another process moved it first. */
async function transition(db: Db, from: AlertRuleState, change: Change, alert: QueuedAlert): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.alertRuleState.updateMany({
      where: { webhookId: from.webhookId, key: from.key, state: from.state, seq: from.seq },
      data: change,
    });
    if (count !== 1) return false;
    await tx.alertDelivery.create({ data: deliveryRow(alert) });
    return true;
  });
}

async function rateCounts(db: Db, where: ReturnType<typeof alertable>, count: number): Promise<RateCounts> {
  const [severities, types, agents] = await Promise.all([
    db.interruption.groupBy({ by: ["severity"], where, _count: { _all: true } }),
    db.interruption.groupBy({ by: ["type"], where, _count: { _all: true } }),
    db.interruption.groupBy({ by: ["agentName"], where, _count: { _all: true } }),
  ]);
  return {
    count,
    bySeverity: Object.fromEntries(severities.map((r) => [r.severity, r._count._all])),
    byType: Object.fromEntries(types.map((r) => [r.type, r._count._all])),
    byAgent: topAgents(agents.map((r) => ({ agent: r.agentName, count: r._count._all }))),
  };
}

/** Evaluates every rate rule at `now`; the number of alerts queued. */
export async function evaluateRateRules(db: Db, hooks: RuledHook[], now: bigint, base: string): Promise<number> {
  let queued = 0;
  for (const hook of hooks) {
    const rule = hook.rate;
    if (!rule) continue;
    const window = rateWindow(rule.windowSecs, now);
    const where = alertable({ ...ruleWhere(rule), occurredAtNs: { gt: window.startNs, lte: window.endNs } });
    const count = await db.interruption.count({ where });
    const state = await stateOf(db, hook.id, RATE_KEY);
    const decision = rateDecision(state, count, rule, now);
    if (!decision) continue;
    const counts = await rateCounts(db, where, count);
    const common = { hook: { id: hook.id, name: hook.name }, rule, counts, window, base };
    if (decision === "fire") {
      const number = state.seq + 1;
      const payload = ratePayload({ ...common, event: "rate.triggered", firing: { number, sinceNs: now, resolvedAtNs: null } });
      const alert: QueuedAlert = { webhookId: hook.id, event: "rate.triggered", dedupeKey: `rate:${now}:triggered`, payload, now };
      if (await transition(db, state, { state: "firing", seq: number, firedAtNs: now, firedCount: count }, alert)) queued++;
    } else {
      const since = state.firedAtNs ?? now;
      const payload = ratePayload({ ...common, event: "rate.resolved", firing: { number: state.seq, sinceNs: since, resolvedAtNs: now } });
      const alert: QueuedAlert = { webhookId: hook.id, event: "rate.resolved", dedupeKey: `rate:${since}:resolved`, payload, now };
      if (await transition(db, state, { state: "ok", resolvedAtNs: now, resolvedCount: count }, alert)) queued++;
    }
  }
  return queued;
}

/**
 * Queues a PagerDuty trigger for an interruption and marks its fingerprint firing (from quiet:
 * a new firing; already firing: unchanged), in one transaction.
 */
export async function queuePagedTrigger(db: Db, alert: QueuedAlert & { fingerprint: string }): Promise<void> {
  const key = fingerprintKey(alert.fingerprint);
  await stateOf(db, alert.webhookId, key);
  await db.$transaction(async (tx) => {
    await tx.alertDelivery.create({ data: deliveryRow(alert) });
    await tx.alertRuleState.updateMany({
      where: { webhookId: alert.webhookId, key, state: "ok" },
      data: { state: "firing", seq: { increment: 1 }, firedAtNs: alert.now },
    });
  });
}

/** Resolves the firing fingerprints of PagerDuty webhooks that have no unresolved interruption left; the number queued. */
export async function resolvePagedFingerprints(db: Db, hooks: RuledHook[], now: bigint, base: string): Promise<number> {
  let queued = 0;
  for (const hook of hooks) {
    const firing = await db.alertRuleState.findMany({ where: { webhookId: hook.id, state: "firing", key: { startsWith: "fp:" } }, take: RESOLVE_BATCH });
    for (const state of firing) {
      const fingerprint = state.key.slice(3);
      const open = await db.interruption.findFirst({ where: { fingerprint, status: { not: "resolved" } }, select: { id: true } });
      if (open) continue;
      const last = await db.interruption.findFirst({ where: { fingerprint }, orderBy: [{ occurredAtNs: "desc" }, { id: "desc" }] });
      const url = last ? interruptionUrl(base, last.id) : `${base}/inbox?${new URLSearchParams({ fingerprint, unresolved: "false" })}`;
      const payload = { event: "interruption.resolved", fingerprint, interruption: last ? interruptionRecord(last) : null, url };
      const alert: QueuedAlert = {
        webhookId: hook.id,
        event: "interruption.resolved",
        dedupeKey: `fp:${fingerprint}:${state.firedAtNs ?? 0n}:resolved`,
        payload,
        now,
        interruptionId: last?.id ?? null,
        fingerprint,
      };
      if (await transition(db, state, { state: "ok", resolvedAtNs: now }, alert)) queued++;
    }
  }
  return queued;
}
