// The row of a queued alert: pending, due now, with the generic body the channel renders when
// it is sent. One delivery per webhook and dedupe key (a unique index), so queueing the same
// alert twice — two processes, a retried scan — leaves one row.
import type { AlertDelivery, Prisma } from "../db/generated/client";
import crypto from "node:crypto";
import type { ClaimCondition } from "../coordination/claims";
import { stringifyExact } from "../wire/json";
import { RESOLVING_EVENTS, type AlertEvent } from "./rules";

export type QueuedAlert = {
  webhookId: string;
  event: AlertEvent;
  dedupeKey: string;
  /** the generic body, before JSON encoding (bigints written exactly) */
  payload: unknown;
  now: bigint;
  interruptionId?: string | null;
  fingerprint?: string | null;
  /** the interruption's createdAtNs: the repeat interval is measured on it */
  sourceAtNs?: bigint | null;
};

export function deliveryRow(a: QueuedAlert): Prisma.AlertDeliveryUncheckedCreateInput {
  return {
    id: crypto.randomUUID(),
    webhookId: a.webhookId,
    interruptionId: a.interruptionId ?? null,
    fingerprint: a.fingerprint ?? null,
    sourceAtNs: a.sourceAtNs ?? null,
    event: a.event,
    dedupeKey: a.dedupeKey,
    status: "pending",
    attempts: 0,
    nextAttemptAtNs: a.now,
    createdAtNs: a.now,
    payload: stringifyExact(a.payload),
  };
}

/** Prisma's unique-constraint error: the alert is queued already. */
export const isDuplicate = (e: unknown) => (e as { code?: string })?.code === "P2002";

const RATE_EVENTS = ["rate.triggered", "rate.resolved"];
const resolving = [...RESOLVING_EVENTS].map((e) => `'${e}'`).join(", ");
/** 1 for a resolve, 0 for what it resolves: a resolve queued in the same ms as a trigger came after it (the scan queues triggers first). */
const RANK = `CASE WHEN o."event" IN (${resolving}) THEN 1 ELSE 0 END`;

/**
 * What a delivery's claim must also find (lib/coordination/claims.ts): PagerDuty keeps one alert
 * per dedup key (a fingerprint, or a webhook's rate rule), so its triggers and resolves must reach
 * it in the order they were queued, whichever process sends them and however often an earlier
 * one is retried: no delivery of the same key queued before this one may still be pending. Other
 * kinds send each alert on its own (null): one that fails does not hold back the next.
 */
export function sentInOrder(d: Pick<AlertDelivery, "id" | "webhookId" | "event" | "fingerprint" | "createdAtNs">, kind: string): ClaimCondition | null {
  if (kind !== "pagerduty") return null;
  const rate = RATE_EVENTS.includes(d.event);
  if (!rate && d.fingerprint === null) return null; // a test alert: a dedup key of its own
  const sameKey = rate ? `o."event" IN (${RATE_EVENTS.map((e) => `'${e}'`).join(", ")})` : `o."fingerprint" = ?`;
  const rank = RESOLVING_EVENTS.has(d.event) ? 1 : 0;
  return {
    sql: `NOT EXISTS (SELECT 1 FROM "AlertDelivery" o WHERE o."webhookId" = ? AND o."status" = 'pending' AND ${sameKey} AND o."id" <> ?
      AND (o."createdAtNs" < ? OR (o."createdAtNs" = ? AND (${RANK} < ? OR (${RANK} = ? AND o."id" < ?)))))`,
    params: [d.webhookId, ...(rate ? [] : [d.fingerprint]), d.id, d.createdAtNs, d.createdAtNs, rank, rank, d.id],
  };
}
