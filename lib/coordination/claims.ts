// Claims on work rows that are sent somewhere (alert deliveries, dead-loop terminate requests):
// the process about to send a pending row first claims it, with one conditional UPDATE that
// succeeds only while nobody holds a live claim on it. A claim lasts the send's timeout and a
// margin; the row of a process that died mid-send is claimable again once that has passed, so
// another process takes it over.
//
// One conditional UPDATE per row, rather than a batch claimed with `FOR UPDATE SKIP LOCKED`:
// each claim is a single-row statement in its own transaction, so a competing process waits at
// most for that statement (PostgreSQL re-checks the WHERE on the row it waited for, and finds
// it claimed), never for a send; the same statement works on SQLite; and the alert worker
// decides row by row what it may start (per-webhook limits), so a batch would have to be
// handed back in part.
import type { Db } from "../db/client";
import { NS_PER_MS } from "../domain/time";
import { execute } from "./sql";

/** The tables whose rows carry `status`, `claimedBy` and `claimExpiresAtNs`. */
export type ClaimTable = "AlertDelivery" | "TerminateRequest";

/** A further condition of a claim, checked in its statement (e.g. that no earlier row waits). */
export type ClaimCondition = { sql: string; params: unknown[] };

/** Claims the pending row `id` for `holder` until `now + ttlMs` (and while `also` holds); true when the claim is ours. */
export async function claimPending(db: Db, table: ClaimTable, id: string, holder: string, now: bigint, ttlMs: number, also?: ClaimCondition | null): Promise<boolean> {
  const changed = await execute(
    db,
    `UPDATE "${table}" SET "claimedBy" = ?, "claimExpiresAtNs" = ?
     WHERE "id" = ? AND "status" = 'pending' AND ("claimExpiresAtNs" IS NULL OR "claimExpiresAtNs" <= ?)${also ? ` AND ${also.sql}` : ""}`,
    [holder, now + BigInt(ttlMs) * NS_PER_MS, id, now, ...(also?.params ?? [])],
  );
  return changed === 1;
}

/** Gives a claim back without finishing the row (it stays pending, for whoever comes next). */
export async function releaseClaim(db: Db, table: ClaimTable, id: string, holder: string): Promise<void> {
  await execute(db, `UPDATE "${table}" SET "claimedBy" = NULL, "claimExpiresAtNs" = NULL WHERE "id" = ? AND "claimedBy" = ?`, [id, holder]);
}

/** What the finishing update of a claimed row adds to its `where` and `data`: only the holder finishes it, and the claim goes. */
export const heldBy = (holder: string) => ({ claimedBy: holder });
export const unclaimed = { claimedBy: null, claimExpiresAtNs: null } as const;
