// Named leases: how the server processes sharing one database split background work (SPEC §7).
// A lease is a row of the Lease table; its holder does the work it names (the alert scan, a
// sweep) until expiresAtNs, renews it while it works, and releases it when done. Taking,
// renewing and taking over an expired lease are one conditional upsert, atomic on both
// databases (PostgreSQL locks the conflicting row, SQLite has one writer), so two processes
// never hold a lease at once — unless a holder stalls past its expiry: the work each lease
// guards is idempotent, the lease only keeps it from being done twice.
//
// Times come from the caller's clock (integer ns, injectable in tests), like every timestamp
// SightDesk writes: the servers' clocks must agree to well within a lease's length (NTP does).
import type { Db } from "../db/client";
import { asBigInt } from "../db/sql";
import { NS_PER_MS } from "../domain/time";
import { execute, queryRows } from "./sql";

/** `taken`: newly held (free, expired, or released before); `renewed`: held already by this holder. */
export type Grant = "taken" | "renewed";

const UPSERT = `INSERT INTO "Lease" ("name", "holder", "acquiredAtNs", "expiresAtNs") VALUES (?, ?, ?, ?)
ON CONFLICT ("name") DO UPDATE SET
  "holder" = excluded."holder",
  "acquiredAtNs" = CASE WHEN "Lease"."holder" = excluded."holder" THEN "Lease"."acquiredAtNs" ELSE excluded."acquiredAtNs" END,
  "expiresAtNs" = excluded."expiresAtNs"
WHERE "Lease"."holder" = excluded."holder" OR "Lease"."expiresAtNs" <= ?
RETURNING "acquiredAtNs"`;

/** Takes a lease whose expiry is still the one seen (compare and set). */
const TAKE_STALE = `UPDATE "Lease" SET "holder" = ?, "acquiredAtNs" = ?, "expiresAtNs" = ? WHERE "name" = ? AND "expiresAtNs" = ?`;

/**
 * Leases seen running out far ahead (more than two lengths from now): set by a clock that ran
 * that far ahead. Its holder, alive, renews it, which moves its expiry; one that stays the same
 * for a lease length by this process's clock was left by a holder that died or was set right:
 * it is taken over (else it held the work off for as long as that clock had been ahead). A
 * holder still running fast keeps it — the processes do not take it from each other in turns.
 */
const farAhead = new Map<string, { expiresAtNs: bigint; seenAtNs: bigint }>();

/** Takes or renews the lease `name` for `ttlMs` from `now`; null while another holder has it. */
export async function acquireLease(db: Db, name: string, holder: string, now: bigint, ttlMs: number): Promise<Grant | null> {
  const ttl = BigInt(ttlMs) * NS_PER_MS;
  const rows = await queryRows<{ acquiredAtNs: unknown }>(db, UPSERT, [name, holder, now, now + ttl, now]);
  if (rows.length) {
    farAhead.delete(`${name}\u0000${holder}`);
    return asBigInt(rows[0].acquiredAtNs) === now ? "taken" : "renewed";
  }
  const [held] = await queryRows<{ expiresAtNs: unknown }>(db, `SELECT "expiresAtNs" FROM "Lease" WHERE "name" = ?`, [name]);
  const expires = held ? asBigInt(held.expiresAtNs) : null;
  const key = `${name}\u0000${holder}`;
  if (expires === null || expires <= now + 2n * ttl) {
    farAhead.delete(key);
    return null;
  }
  const seen = farAhead.get(key);
  if (!seen || seen.expiresAtNs !== expires) {
    if (farAhead.size >= 1_000) farAhead.clear();
    farAhead.set(key, { expiresAtNs: expires, seenAtNs: now });
    return null;
  }
  if (now - seen.seenAtNs < ttl) return null;
  farAhead.delete(key);
  return (await execute(db, TAKE_STALE, [holder, now, now + ttl, name, expires])) === 1 ? "taken" : null;
}

/** Gives the lease up at once (no-op when `holder` does not hold it any more). */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await execute(db, `DELETE FROM "Lease" WHERE "name" = ? AND "holder" = ?`, [name, holder]);
}

/**
 * Extends the lease `holder` holds to `now + ttlMs`; false when it holds it no more: another
 * process took it over (and may have released it since). Never takes a lease that is not held.
 */
export async function renewLease(db: Db, name: string, holder: string, now: bigint, ttlMs: number): Promise<boolean> {
  return (await execute(db, `UPDATE "Lease" SET "expiresAtNs" = ? WHERE "name" = ? AND "holder" = ?`, [now + BigInt(ttlMs) * NS_PER_MS, name, holder])) === 1;
}

export type LeaseOptions = {
  db: Db;
  name: string;
  holder: string;
  ttlMs: number;
  now: () => bigint;
  log: (message: string) => void;
};

/**
 * Runs `work` under the lease when it can be taken (else returns null without running it),
 * renewing it every third of its length while `work` runs, however long that is, and releasing
 * it afterwards. A process that dies mid-work stops renewing: the lease expires within `ttlMs`
 * and another process can take the work over. Renewals run one after another, none starts once
 * the work is done, and a renewal only extends a lease still held, so none takes it again after
 * the release. A renewal that finds the lease gone to another process (held, or taken and
 * released since) aborts `lost`: the work should stop, another process does or did it.
 */
export async function withLease<T>(o: LeaseOptions, work: (grant: Grant, lost: AbortSignal) => Promise<T>): Promise<T | null> {
  const grant = await acquireLease(o.db, o.name, o.holder, o.now(), o.ttlMs);
  if (!grant) return null;
  const lost = new AbortController();
  const stopRenewing = renewWhileWorking(o, () => {
    o.log(`lease ${o.name} lost while working (another process took it over)`);
    lost.abort(new Error(`lease ${o.name} lost to another process`));
  });
  try {
    return await work(grant, lost.signal);
  } finally {
    await stopRenewing();
    await releaseLease(o.db, o.name, o.holder).catch((e: Error) => o.log(`lease ${o.name} not released: ${e.message}`));
  }
}

/**
 * Renews a lease this process holds every third of its time, until the function it returns is
 * called (and awaited); `onLost` is told once if another process holds it meanwhile.
 */
export function renewWhileWorking(o: LeaseOptions, onLost: () => void): () => Promise<void> {
  let done = false;
  let lost = false;
  const renew = async () => {
    if (done || lost) return;
    try {
      if (await renewLease(o.db, o.name, o.holder, o.now(), o.ttlMs)) return;
      lost = true;
      onLost();
    } catch (e) {
      o.log(`lease ${o.name} not renewed: ${(e as Error).message}`);
    }
  };
  let renewing = Promise.resolve();
  const timer = setInterval(() => void (renewing = renewing.then(renew)), Math.max(100, Math.floor(o.ttlMs / 3)));
  timer.unref?.();
  return async () => {
    done = true;
    clearInterval(timer);
    await renewing;
  };
}
