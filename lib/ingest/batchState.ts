// The rows an ingest batch reads and changes, loaded once per batch and written back at the
// end, so a batch of N calls costs a handful of queries rather than N round trips each.
import type { DbTx } from "../db/client";
import { findInChunks } from "../db/chunks";
import type { CallSummary } from "../detect/deadLoop";
import type { InterruptionRow } from "./interruptions";

type Tracked<T> = T & { isNew: boolean; dirty: boolean };

export type SessionState = Tracked<{
  id: string;
  agentName: string | null;
  pid: number | null;
  host: string | null;
  processName: string | null;
  firstSeenNs: bigint;
  lastSeenNs: bigint;
  callCount: number;
  inputTokens: number;
  outputTokens: number;
  lastModel: string | null;
}>;

export type DetectState = { window: CallSummary[]; counts: Record<string, number> };

export type ConversationState = Tracked<{
  id: string;
  sessionId: string | null;
  firstSeenNs: bigint;
  lastSeenNs: bigint;
  callCount: number;
  brickedSinceCallId: string | null;
  state: DetectState;
}>;

export type TurnState = Tracked<{
  id: string;
  conversationId: string | null;
  sessionId: string | null;
  firstSeenNs: bigint;
  lastSeenNs: bigint;
  callCount: number;
  endReason: string | null;
}>;

/** An open grouped interruption (dead_loop, retry_storm) that new evidence updates. */
export type GroupedState = Tracked<{ row: InterruptionRow }>;

export type ToolCallState = Tracked<{
  id: string;
  sessionId: string | null;
  conversationId: string | null;
  callId: string | null;
  toolCallId: string;
  name: string | null;
  arguments: string | null;
  response: string | null;
  success: boolean | null;
  error: string | null;
  durationNs: bigint | null;
  atNs: bigint | null;
}>;

export const GROUPED_TYPES = ["dead_loop", "retry_storm"] as const;

export function groupKey(conversationId: string, type: string, repeatedType = ""): string {
  return `${conversationId}|${type}|${repeatedType}`;
}

function parseDetectState(text: string): DetectState {
  try {
    const parsed = JSON.parse(text) as Partial<DetectState>;
    return { window: parsed.window ?? [], counts: parsed.counts ?? {} };
  } catch {
    return { window: [], counts: {} };
  }
}

export async function loadSessions(tx: DbTx, ids: string[]): Promise<Map<string, SessionState>> {
  const rows = await findInChunks(ids, (chunk) => tx.session.findMany({ where: { id: { in: chunk } } }));
  return new Map(rows.map((r) => [r.id, { ...r, isNew: false, dirty: false }]));
}

export async function loadConversations(tx: DbTx, ids: string[]): Promise<Map<string, ConversationState>> {
  const rows = await findInChunks(ids, (chunk) => tx.conversation.findMany({ where: { id: { in: chunk } } }));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        sessionId: r.sessionId,
        firstSeenNs: r.firstSeenNs,
        lastSeenNs: r.lastSeenNs,
        callCount: r.callCount,
        brickedSinceCallId: r.brickedSinceCallId,
        state: parseDetectState(r.detectState),
        isNew: false,
        dirty: false,
      },
    ]),
  );
}

export async function loadTurns(tx: DbTx, ids: string[]): Promise<Map<string, TurnState>> {
  const rows = await findInChunks(ids, (chunk) => tx.turn.findMany({ where: { id: { in: chunk } } }));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        conversationId: r.conversationId,
        sessionId: r.sessionId,
        firstSeenNs: r.firstSeenNs,
        lastSeenNs: r.lastSeenNs,
        callCount: r.callCount,
        endReason: r.endReason,
        isNew: false,
        dirty: false,
      },
    ]),
  );
}

export async function loadOpenGrouped(tx: DbTx, conversationIds: string[]): Promise<Map<string, GroupedState>> {
  const rows = await findInChunks(conversationIds, (chunk) =>
    tx.interruption.findMany({
      where: { conversationId: { in: chunk }, type: { in: [...GROUPED_TYPES] }, status: { not: "resolved" } },
    }),
  );
  const open = new Map<string, GroupedState>();
  for (const r of rows) {
    const repeated = r.type === "retry_storm" ? String((JSON.parse(r.detail) as { repeated_type?: string }).repeated_type ?? "") : "";
    open.set(groupKey(r.conversationId ?? "", r.type, repeated), { row: r, isNew: false, dirty: false });
  }
  return open;
}

export async function loadToolCalls(tx: DbTx, ids: string[]): Promise<Map<string, ToolCallState>> {
  const rows = await findInChunks(ids, (chunk) => tx.toolCall.findMany({ where: { id: { in: chunk } } }));
  return new Map(rows.map((r) => [r.id, { ...r, isNew: false, dirty: false }]));
}

export async function existingIds(
  ids: string[],
  query: (chunk: string[]) => Promise<{ id: string }[]>,
): Promise<Set<string>> {
  return new Set((await findInChunks(ids, query)).map((r) => r.id));
}

/** Writes new rows with createMany and changed rows one by one. */
export async function writeTracked<T extends { isNew: boolean; dirty: boolean }, R>(
  items: Iterable<T>,
  toRow: (item: T) => R,
  createMany: (rows: R[]) => Promise<unknown>,
  update: (item: T, row: R) => Promise<unknown>,
): Promise<void> {
  const created: R[] = [];
  for (const item of items) {
    if (item.isNew) created.push(toRow(item));
    else if (item.dirty) await update(item, toRow(item));
  }
  for (let i = 0; i < created.length; i += 500) await createMany(created.slice(i, i + 500));
}
