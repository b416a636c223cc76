// The row of a queued alert: pending, due now, with the generic body the channel renders when
// it is sent. One delivery per webhook and dedupe key (a unique index), so queueing the same
// alert twice — two processes, a retried scan — leaves one row.
import type { AlertDelivery, Prisma } from "../db/generated/client";
import crypto from "node:crypto";
import type { ClaimCondition } from "../coordination/claims";
import { execute } from "../coordination/sql";
import type { Db, DbTx } from "../db/client";
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
const quoted = (events: Iterable<string>) => [...events].map((e) => `'${e}'`).join(", ");
/** 1 for a resolve, 0 for what it resolves: a resolve stamped in the same ms as a trigger came after it. */
const RANK = `CASE WHEN o."event" IN (${quoted(RESOLVING_EVENTS)}) THEN 1 ELSE 0 END`;

type Ordered = Pick<AlertDelivery, "id" | "webhookId" | "event" | "fingerprint" | "createdAtNs">;

/** A delivery's PagerDuty dedup key among its webhook's: any rate event, or its fingerprint; null for a test alert (a key of its own). */
function keyOf(event: string, fingerprint: string | null | undefined): { rate: true } | { fingerprint: string } | null {
  if (RATE_EVENTS.includes(event)) return { rate: true };
  return fingerprint ? { fingerprint } : null;
}

/**
 * PagerDuty keeps one alert per dedup key (a fingerprint, or a webhook's rate rule), so its
 * triggers and resolves must reach it in the order they were queued, whichever process sends
 * them and however often an earlier one is retried. The deliveries of the key queued before `d`
 * and still pending, as a condition on the rows `o` (null: `d` waits for nothing — another kind,
 * whose alerts go each on its own, or a test alert, with a key of its own).
 */
function earlierPending(d: Ordered, kind: string): ClaimCondition | null {
  const key = kind === "pagerduty" ? keyOf(d.event, d.fingerprint) : null;
  if (!key) return null;
  const rank = RESOLVING_EVENTS.has(d.event) ? 1 : 0;
  return {
    sql: `o."webhookId" = ? AND o."status" = 'pending' AND ${"rate" in key ? `o."event" IN (${quoted(RATE_EVENTS)})` : `o."fingerprint" = ?`} AND o."id" <> ?
      AND (o."createdAtNs" < ? OR (o."createdAtNs" = ? AND (${RANK} < ? OR (${RANK} = ? AND o."id" < ?))))`,
    params: [d.webhookId, ...("rate" in key ? [] : [key.fingerprint]), d.id, d.createdAtNs, d.createdAtNs, rank, rank, d.id],
  };
}

/** What a delivery's claim must also find (lib/coordination/claims.ts): no delivery of its PagerDuty key before it still pending. */
export function sentInOrder(d: Ordered, kind: string): ClaimCondition | null {
  const earlier = earlierPending(d, kind);
  return earlier && { sql: `NOT EXISTS (SELECT 1 FROM "AlertDelivery" o WHERE ${earlier.sql})`, params: earlier.params };
}

/**
 * Moves a delivery that waits for earlier ones of its key (sentInOrder refused its claim) to when
 * the last of them is next tried: else the deliveries waiting, all due, could fill every list of
 * due deliveries the worker reads, and what they wait for would never be read (nor any other alert).
 */
export async function deferBehindEarlier(db: Db, d: Ordered, kind: string, now: bigint): Promise<void> {
  const earlier = earlierPending(d, kind);
  if (!earlier) return;
  const latest = `(SELECT MAX(o."nextAttemptAtNs") FROM "AlertDelivery" o WHERE ${earlier.sql})`;
  await execute(
    db,
    `UPDATE "AlertDelivery" SET "nextAttemptAtNs" = ${latest}
     WHERE "id" = ? AND "status" = 'pending' AND ("claimExpiresAtNs" IS NULL OR "claimExpiresAtNs" <= ?) AND "nextAttemptAtNs" < ${latest}`,
    [...earlier.params, d.id, now, ...earlier.params],
  );
}

/**
 * The row of a queued alert, stamped (createdAtNs) no earlier than just after the latest delivery
 * of its PagerDuty key: the order sentInOrder keeps is the order of these stamps, which must be
 * the order of queueing even when the clock of the process queueing now is behind the one that
 * queued before (the scan lease moved), or a resolve's time was read before the scan queued its
 * triggers. It is due at once all the same.
 */
export async function deliveryRowInKeyOrder(tx: DbTx, alert: QueuedAlert): Promise<Prisma.AlertDeliveryUncheckedCreateInput> {
  const row = deliveryRow(alert);
  const key = keyOf(alert.event, alert.fingerprint);
  if (!key) return row;
  const latest = await tx.alertDelivery.findFirst({
    where: { webhookId: alert.webhookId, ...("rate" in key ? { event: { in: RATE_EVENTS } } : key) },
    orderBy: { createdAtNs: "desc" },
    select: { createdAtNs: true },
  });
  return latest && latest.createdAtNs >= alert.now ? { ...row, createdAtNs: latest.createdAtNs + 1n } : row;
}
