// The row of a queued alert: pending, due now, with the generic body the channel renders when
// it is sent. One delivery per webhook and dedupe key (a unique index), so queueing the same
// alert twice — two processes, a retried scan — leaves one row.
import type { Prisma } from "../db/generated/client";
import crypto from "node:crypto";
import { stringifyExact } from "../wire/json";
import type { AlertEvent } from "./rules";

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
