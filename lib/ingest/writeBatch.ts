// The inserts of a call batch, parents before children, one multi-row statement per table
// (`insertRows`): new rows are inserted, changed ones updated on conflict. The agents' rows are
// written apart, last in the transaction (`writeAgents`).
import { existingIds, insertRows, selectIn, upsertRows, type OnConflict } from "../db/multiRow";
import type { Sql } from "../db/sql";
import { nowNs } from "../domain/time";
import { admitArrivals, asAdmitted } from "../triage/arrivals";
import type { BatchState, GroupedState } from "./batchState";
import type { BatchDetection } from "./detection";
import type { InterruptionRow } from "./interruptions";
import type { MessageStore } from "./messageStore";
import { agentRow, conversationRow, sessionRow, toolCallRow, turnRow, type CallRows } from "./rows";

/** What a batch of calls has gathered: the state it read and changed, and the rows it adds. */
export type CallBatch = { state: BatchState; messages: MessageStore; calls: CallRows; detection: BatchDetection };

/** Writes a batch but its agents' rows; returns the interruptions it created (updates of open ones not included). */
export async function writeBatch(sql: Sql, { state, messages, calls, detection }: CallBatch): Promise<InterruptionRow[]> {
  await insertRows(sql, "Session", touched(state.sessions).map(sessionRow), { key: ["id"], update: "all" });
  await insertRows(sql, "Conversation", touched(state.conversations).map(conversationRow), { key: ["id"], update: "all" });
  // endReason belongs to turn_end events; calls never change it. A call makes its turn's staleness
  // a question again (staleCheckedNs: the unsettled-turn check judges it when it goes stale).
  // in id order, as the unsettled-turn check marks them (lib/sweeps/sweep.ts)
  const turns = touched(state.turns).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  await insertRows(sql, "Turn", turns.map((t) => ({ ...turnRow(t), staleCheckedNs: null })), {
    key: ["id"],
    update: ["conversationId", "firstSeenNs", "lastSeenNs", "callCount", "staleCheckedNs"],
  });
  // rows shared by every session (a prompt's) in key order: two transactions writing the same
  // ones (PostgreSQL: other processes, or this one's other group) never wait in a cycle
  const blobs = [...calls.blobs].sort(byKey).map(([id, content]) => ({ id, content }));
  await insertRows(sql, "Blob", blobs, { key: ["id"], update: "nothing" });
  await insertRows(sql, "Message", messages.rows, { key: ["id"], update: "nothing" });
  await insertRows(sql, "Call", calls.rows, { key: ["id"], update: "nothing" });
  await insertRows(sql, "ToolCall", touched(state.toolCalls).map(toolCallRow), TOOL_CALL_WRITE);
  return writeInterruptions(sql, detection.candidates, state.grouped);
}

/**
 * A tool call's row as a call batch changes it: its maker, name, arguments and result (the
 * arguments and result unread, so null keeps the stored ones); its error and duration are a
 * tool_result event's (storeEvents.ts) and stay.
 */
const TOOL_CALL_WRITE: OnConflict = { key: ["id"], update: ["callId", "atNs", "name", "arguments", "response", "success"], keep: ["arguments", "response"] };

/**
 * The agents' rows, in name order, written last in the transaction (storeCalls.ts): every batch
 * of an agent upserts its row, and on PostgreSQL an upserted row stays locked until commit, so a
 * concurrent batch of the same agent (another process's, or this one's other group) waits for
 * it; written first, it waited for the whole of the other's transaction. A batch may commit
 * after a later one: the first sighting only moves back, the last only on.
 */
export async function writeAgents(sql: Sql, state: BatchState): Promise<void> {
  await insertRows(sql, "Agent", [...state.agents].sort(byKey).map(agentRow), { key: ["name"], update: ["firstSeenNs", "lastSeenNs"], greatest: ["lastSeenNs"], least: ["firstSeenNs"] });
}

/**
 * One-off interruptions already stored (a replayed tool result, say) are left as they are. A
 * grouped one resolved since the batch read it (another process's triage) keeps what it had:
 * the batch's evidence opens its successor, which arrives as new (SPEC §3.4: it fires again).
 * Which were resolved is read before snoozes count the batch (the successor is an arrival, not
 * a repeat) and they lock their rows (snoozes first, as triage does); one resolved between
 * that read and the update gets its successor after it.
 */
async function writeInterruptions(sql: Sql, candidates: Map<string, InterruptionRow>, grouped: Map<string, GroupedState>): Promise<InterruptionRow[]> {
  const ids = [...candidates.keys()];
  const open = touched(grouped);
  const [stored, resolved] = await Promise.all([existingIds(sql, "Interruption", ids), resolvedIds(sql, open.filter((g) => !g.isNew).map((g) => g.row.id))]);
  const fresh = ids.filter((id) => !stored.has(id)).map((id) => candidates.get(id)!);
  const repeated = open.filter((g) => !g.isNew && !resolved.has(g.row.id));
  const opened = [...open.filter((g) => g.isNew).map((g) => g.row), ...open.filter((g) => resolved.has(g.row.id)).map((g) => g.successor!)];
  // snoozes and mute rules (SPEC §4): new ones may arrive snoozed, repeats count toward snoozes
  const admission = await admitArrivals(sql, [...fresh, ...opened], repeated.map((g) => g.row), nowNs());
  await insertRows(sql, "Interruption", asAdmitted(fresh, admission), { key: ["id"], update: "nothing" });
  await insertRows(sql, "Interruption", asAdmitted(opened, admission), { key: ["id"], update: GROUPED_EVIDENCE });
  const kept = await upsertRows(sql, "Interruption", repeated.map((g) => g.row), { key: ["id"], update: GROUPED_EVIDENCE, where: `"Interruption"."status" <> 'resolved'` });
  const late = repeated.filter((g) => !kept.has(g.row.id)).map((g) => g.successor!);
  if (late.length) {
    // their evidence counted toward snoozes above, as repeats
    const admitted = asAdmitted(late, await admitArrivals(sql, late, [], nowNs(), true));
    await insertRows(sql, "Interruption", admitted, { key: ["id"], update: GROUPED_EVIDENCE });
  }
  return [...fresh, ...opened, ...late];
}

/** Those of `ids` resolved now. */
async function resolvedIds(sql: Sql, ids: string[]): Promise<Set<string>> {
  return new Set((await selectIn(sql, "Interruption", "id", ids, '"id"', `"status" = 'resolved'`)).map((r) => String(r.id)));
}

const GROUPED_EVIDENCE = ["occurrences", "lastSeenNs", "detail"];

function touched<T extends { isNew: boolean; dirty: boolean }>(items: Map<string, T>): T[] {
  return [...items.values()].filter((i) => i.isNew || i.dirty);
}

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);
