// The lifecycle of an interruption (SPEC §4): open → acknowledged → resolved, reopen, assign,
// notes. Every change writes an activity row naming the actor; a change that would change
// nothing (resolving a resolved one) is a no-op and writes nothing. A snoozed interruption
// (./snooze.ts) that is acknowledged, resolved or reopened by hand leaves its snooze.
import { conflict, notFound } from "../domain/errors";
import type { Db, DbTx } from "../db/client";
import type { Prisma } from "../db/generated/client";
import { transaction, type Sql } from "../db/sql";
import { nowNs } from "../domain/time";
import { endEmptied, lockChosenSnooze } from "./snoozeStore";

export const ACTIONS = ["acknowledge", "resolve", "reopen", "assign", "note"] as const;
export type Action = (typeof ACTIONS)[number];

export type ActionInput = { action: Action; actor: string; note?: string | null; assignee?: string | null };

type Current = { id: string; status: string; assignee: string | null; snoozeId: string | null };

/** What the action changes on a row in this state, or null when it changes nothing. */
function changeFor(row: Current, input: ActionInput, at: bigint): Prisma.InterruptionUpdateManyMutationInput | null {
  switch (input.action) {
    case "acknowledge":
      return row.status === "open" || row.status === "snoozed" ? { status: "acknowledged", acknowledgedBy: input.actor, acknowledgedAtNs: at, snoozeId: null } : null;
    case "resolve":
      return row.status === "resolved"
        ? null
        : { status: "resolved", resolvedBy: input.actor, resolvedAtNs: at, resolutionNote: input.note ?? null, snoozeId: null };
    case "reopen":
      return row.status === "open"
        ? null
        : { status: "open", acknowledgedBy: null, acknowledgedAtNs: null, resolvedBy: null, resolvedAtNs: null, resolutionNote: null, snoozeId: null };
    case "assign":
      return (input.assignee ?? null) === row.assignee ? null : { assignee: input.assignee ?? null };
    case "note":
      return {};
  }
}

const CHUNK = 500;
/** Times a row changed by someone else between its read and its update is read again. */
const RETRIES = 5;

type ChunkResult = { matched: number; changed: number; missed: string[] };

/**
 * Applies one action to many interruptions, in chunks of one transaction each. Rows are
 * updated only if still in the state that was read (concurrent triage cannot double-apply);
 * one that another request changed between the read and the update (PostgreSQL's READ
 * COMMITTED lets both read it) is read again in a new transaction and judged on what it is
 * now, so no action answers success while its change was dropped.
 */
export async function applyToMany(db: Db, ids: string[], input: ActionInput): Promise<{ matched: number; changed: number }> {
  const unique = [...new Set(ids)];
  let matched = 0;
  let changed = 0;
  for (let i = 0; i < unique.length; i += CHUNK) {
    let pending = unique.slice(i, i + CHUNK);
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt > RETRIES) throw new Error(`interruptions kept changing while being updated (${pending.length} left)`);
      const result: ChunkResult = await transaction(db, (sql, tx) => applyChunk(sql, tx, pending, input));
      if (attempt === 0) matched += result.matched;
      changed += result.changed;
      pending = result.missed;
    }
  }
  return { matched, changed };
}

async function applyChunk(sql: Sql, tx: DbTx, ids: string[], input: ActionInput): Promise<ChunkResult> {
  const at = nowNs();
  const rows = await tx.interruption.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, assignee: true, snoozeId: true }, orderBy: { id: "asc" } });
  const changes = rows.map((row) => ({ row, data: changeFor(row, input, at) }));
  // the snoozes this may leave empty (and end: endEmptied) are locked before the rows: in the
  // other order than ingest's, a resolve and an arrival could wait on each other
  const emptied = [...new Set(changes.flatMap(({ row, data }) => (row.snoozeId && data?.snoozeId === null ? [row.snoozeId] : [])))].sort();
  for (const id of emptied) await lockChosenSnooze(sql, id);
  const leftSnoozes: string[] = [];
  const missed: string[] = [];
  let changed = 0;
  const activity: Prisma.InterruptionActivityCreateManyInput[] = [];
  for (const { row, data } of changes) {
    if (!data) continue;
    if (Object.keys(data).length) {
      const updated = await tx.interruption.updateMany({ where: { id: row.id, status: row.status, assignee: row.assignee, snoozeId: row.snoozeId }, data });
      if (updated.count === 0) {
        missed.push(row.id); // changed by someone else meanwhile: judged again on what it is now
        continue;
      }
      if (row.snoozeId && data.snoozeId === null) leftSnoozes.push(row.snoozeId);
    }
    changed += 1;
    activity.push({
      interruptionId: row.id,
      actor: input.actor,
      action: input.action,
      before: JSON.stringify({ status: row.status, assignee: row.assignee }),
      after: JSON.stringify({ status: (data.status as string | undefined) ?? row.status, assignee: data.assignee !== undefined ? data.assignee : row.assignee }),
      note: input.note ?? null,
      atNs: at,
    });
  }
  if (activity.length) await tx.interruptionActivity.createMany({ data: activity });
  await endEmptied(sql, leftSnoozes, at);
  return { matched: rows.length, changed, missed };
}

/** One interruption: 404 when unknown, 409 when the action makes no sense in its state. */
export async function applyToOne(db: Db, id: string, input: ActionInput) {
  const { matched, changed } = await applyToMany(db, [id], input);
  const after = matched ? await db.interruption.findUnique({ where: { id } }) : null;
  if (!after) throw notFound("Interruption not found");
  // judged in the transaction that would have changed it (a resolve may have come first)
  if (input.action === "acknowledge" && !changed && after.status === "resolved") {
    throw conflict("Interruption is resolved: reopen it before acknowledging");
  }
  return after;
}

export function activityOf(db: DbTx, interruptionId: string) {
  return db.interruptionActivity.findMany({ where: { interruptionId }, orderBy: [{ atNs: "asc" }, { id: "asc" }] });
}
