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
import { execute, queryRows } from "../coordination/sql";
import { interruptionRecord } from "../wire/records";
import { alertable, ruleWhere } from "./candidates";
import { deliveryRowInKeyOrder, type QueuedAlert } from "./queue";
import { rateDecision, ratePayload, rateWindow, topAgents, type RateCounts } from "./rate";
import type { RuledHook } from "./ruled";
import { interruptionUrl } from "./rules";

export const RATE_KEY = "rate";
export const fingerprintKey = (fingerprint: string) => `fp:${fingerprint}`;
/** Fingerprints resolved per webhook and pass (the rest on the next). */
const RESOLVE_BATCH = 200;

/** The state row of (webhook, key), created quiet when there is none (read first: no write on the usual path). */
async function stateOf(db: Db, webhookId: string, key: string): Promise<AlertRuleState> {
  const where = { webhookId_key: { webhookId, key } };
  const found = await db.alertRuleState.findUnique({ where });
  if (found) return found;
  await execute(db, `INSERT INTO "AlertRuleState" ("webhookId", "key", "state", "seq") VALUES (?, ?, 'ok', 0) ON CONFLICT DO NOTHING`, [webhookId, key]);
  return db.alertRuleState.findUniqueOrThrow({ where });
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
    await tx.alertDelivery.create({ data: await deliveryRowInKeyOrder(tx, alert) });
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

/**
 * What the scanning process remembers between two evaluations, to skip the rules whose count
 * cannot have changed: the newest interruption it had seen, and when it last counted each rule.
 */
export type RateMemory = { evaluatedAt: Map<string, { at: bigint; version: bigint }> };
export const rateMemory = (): RateMemory => ({ evaluatedAt: new Map() });
/** Interruptions committed a little after ones with a later createdAtNs still count: arrivals are looked for this far back. */
const ARRIVAL_LOOKBACK_NS = 10n * 1_000_000_000n;

/**
 * A quiet rule is counted again at least this often: a count can also grow without a new
 * interruption (a snooze that wakes its interruptions into the window, a mute rule that ends).
 */
const RECOUNT_NS = 60n * 1_000_000_000n;

/**
 * Whether a rule must be counted now. A quiet rule's count grows with new interruptions
 * (`newestNs`: the newest createdAtNs), and a fire it held back (once per window) becomes
 * possible when that window ends; a firing rule's count falls with time alone, so it is counted
 * every pass; a rule this process has not counted yet (or not as it is now: an edited webhook
 * is counted again) is counted, and any rule once a minute.
 */
export function rateDue(state: Pick<AlertRuleState, "state" | "firedAtNs"> | undefined, windowSecs: number, lastNs: bigint | undefined, newestNs: bigint, nowNs: bigint): boolean {
  if (lastNs === undefined || state?.state === "firing" || nowNs - lastNs >= RECOUNT_NS) return true;
  if (newestNs > lastNs - ARRIVAL_LOOKBACK_NS) return true;
  const unblockAt = state?.firedAtNs == null ? null : state.firedAtNs + BigInt(windowSecs) * 1_000_000_000n;
  return unblockAt !== null && lastNs < unblockAt && unblockAt <= nowNs;
}

/** Evaluates the rate rules among `hooks` at `now` (those that may have changed); the number of alerts queued. */
export async function evaluateRateRules(db: Db, hooks: RuledHook[], now: bigint, base: string, memory: RateMemory = rateMemory()): Promise<number> {
  const rated = hooks.filter((h) => h.rate);
  if (!rated.length) return 0;
  const newest = (await db.interruption.aggregate({ _max: { createdAtNs: true } }))._max.createdAtNs ?? 0n;
  const states = new Map((await db.alertRuleState.findMany({ where: { webhookId: { in: rated.map((h) => h.id) }, key: RATE_KEY } })).map((s) => [s.webhookId, s]));
  let queued = 0;
  for (const hook of rated) {
    const rule = hook.rate!;
    const known = states.get(hook.id);
    // an edited rule (a lower threshold, other filters) is counted at once
    const last = memory.evaluatedAt.get(hook.id);
    const counted = { at: now, version: hook.updatedAtNs };
    if (!rateDue(known, rule.windowSecs, last?.version === hook.updatedAtNs ? last.at : undefined, newest, now)) continue;
    const window = rateWindow(rule.windowSecs, now);
    const where = alertable({ ...ruleWhere(rule), occurredAtNs: { gt: window.startNs, lte: window.endNs } });
    const count = await db.interruption.count({ where });
    const decision = rateDecision(known ?? { state: "ok", seq: 0, firedAtNs: null }, count, rule, now);
    // remembered once counted and acted on: a pass that failed midway counts the rule again
    if (!decision) {
      memory.evaluatedAt.set(hook.id, counted);
      continue;
    }
    const state = known ?? (await stateOf(db, hook.id, RATE_KEY));
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
    memory.evaluatedAt.set(hook.id, counted);
  }
  return queued;
}

/**
 * Queues a PagerDuty trigger for an interruption and marks its fingerprint firing (from quiet:
 * a new firing), in one transaction. Every trigger moves the state's `seq` on, firing already or
 * not: a resolve decided before it (by another process that found nothing open, then this
 * interruption arrived) no longer applies, and is not queued behind it.
 */
export async function queuePagedTrigger(db: Db, alert: QueuedAlert & { fingerprint: string }): Promise<void> {
  const key = fingerprintKey(alert.fingerprint);
  await stateOf(db, alert.webhookId, key);
  await db.$transaction(async (tx) => {
    await tx.alertDelivery.create({ data: await deliveryRowInKeyOrder(tx, alert) });
    const { count } = await tx.alertRuleState.updateMany({
      where: { webhookId: alert.webhookId, key, state: "ok" },
      data: { state: "firing", seq: { increment: 1 }, firedAtNs: alert.now },
    });
    if (count === 0) await tx.alertRuleState.updateMany({ where: { webhookId: alert.webhookId, key }, data: { seq: { increment: 1 } } });
  });
}

/** Resolves the firing fingerprints of PagerDuty webhooks that have no unresolved interruption left; the number queued. */
export async function resolvePagedFingerprints(db: Db, hooks: RuledHook[], now: bigint, base: string): Promise<number> {
  let queued = 0;
  for (const hook of hooks) {
    // only those with no unresolved interruption left: a batch of the first firing ones, most
    // still open, would be the same batch every pass, and the others never resolved
    const resolvable = await queryRows<{ key: string }>(
      db,
      `SELECT "s"."key" FROM "AlertRuleState" AS "s" WHERE "s"."webhookId" = ? AND "s"."state" = 'firing' AND "s"."key" LIKE 'fp:%'
          AND NOT EXISTS (SELECT 1 FROM "Interruption" AS "i" WHERE "i"."fingerprint" = substr("s"."key", 4) AND "i"."status" <> 'resolved')
        LIMIT ?`,
      [hook.id, RESOLVE_BATCH],
    );
    if (!resolvable.length) continue;
    const firing = await db.alertRuleState.findMany({ where: { webhookId: hook.id, state: "firing", key: { in: resolvable.map((r) => r.key) } } });
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
