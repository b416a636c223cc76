// The sweep log (the SweepRun table): one row per sweep, written by the process that ran it —
// when it started and finished, what it removed and flagged, or why it failed. With several
// server processes on one database the log is also the schedule: a sweep is due when the
// latest run started a check interval ago or more, whoever ran it; and the size the latest run
// left the database at is the size cap's baseline for how fast the data grows.
import crypto from "node:crypto";
import type { Db } from "../db/client";
import { execute } from "../coordination/sql";

const NS_PER_DAY = 86_400n * 1_000_000_000n;
/** Rows of the log older than this are removed as new runs are recorded. */
const KEEP_NS = 7n * NS_PER_DAY;

export type SweepRunStatus = "running" | "done" | "failed" | "abandoned";

/**
 * True when no sweep started within `intervalNs` before `now`. A run dated more than an interval
 * ahead was logged by a process whose clock ran fast: it is not taken as recent (it would hold
 * every sweep off for as long as that clock was ahead, also once it is set right).
 */
export async function sweepDue(db: Db, now: bigint, intervalNs: bigint): Promise<boolean> {
  const recent = await db.sweepRun.findFirst({ where: { startedAtNs: { gt: now - intervalNs, lte: now + intervalNs } }, select: { id: true } });
  return recent === null;
}

/**
 * Records the start of a sweep by `holder` (who holds the sweep lease), unless another started
 * within the interval meanwhile (checked in the same statement); returns its id, or null. Runs
 * still marked `running` were left by a process that stopped mid-sweep: they become `abandoned`.
 */
export async function beginSweepRun(db: Db, holder: string, now: bigint, intervalNs: bigint): Promise<string | null> {
  const id = crypto.randomUUID();
  const inserted = await execute(
    db,
    `INSERT INTO "SweepRun" ("id", "holder", "startedAtNs", "status")
     SELECT ?, ?, CAST(? AS BIGINT), 'running' WHERE NOT EXISTS (SELECT 1 FROM "SweepRun" WHERE "startedAtNs" > ? AND "startedAtNs" <= ?)`,
    [id, holder, now, now - intervalNs, now + intervalNs],
  );
  if (inserted !== 1) return null;
  await db.sweepRun.updateMany({ where: { status: "running", NOT: { id } }, data: { status: "abandoned" } });
  return id;
}

/** Records how a run ended, and forgets runs older than a week (or dated more than a week ahead, by a clock gone wrong). */
export async function finishSweepRun(db: Db, id: string, status: "done" | "failed", result: string, now: bigint): Promise<void> {
  await db.sweepRun.update({ where: { id }, data: { status, result, finishedAtNs: now } });
  await db.sweepRun.deleteMany({ where: { OR: [{ startedAtNs: { lt: now - KEEP_NS } }, { startedAtNs: { gt: now + KEEP_NS } }] } });
}

/** What a sweep's size cap left: the database's size, when that sweep finished. */
export type SizeLeft = { bytes: number; atNs: bigint };

/**
 * The size the latest finished sweep left the database at, whichever process ran it (null before
 * any, or when it measured none): the size cap's baseline for the pace the data grows at.
 */
export async function lastSizeLeft(db: Db): Promise<SizeLeft | null> {
  const run = await db.sweepRun.findFirst({
    where: { status: "done", finishedAtNs: { not: null } },
    orderBy: { startedAtNs: "desc" },
    select: { result: true, finishedAtNs: true },
  });
  if (!run?.result || run.finishedAtNs === null) return null;
  try {
    const bytes = (JSON.parse(run.result) as { sizeCap?: { bytesAfter?: unknown } }).sizeCap?.bytesAfter;
    return typeof bytes === "number" && Number.isFinite(bytes) ? { bytes, atNs: run.finishedAtNs } : null;
  } catch {
    return null; // a log row written by hand, or by a version that logged something else
  }
}
