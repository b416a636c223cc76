// A session's trajectory as a tree: conversations → turns → calls, in time order, built from
// the session detail (conversations and their turns) and the calls loaded so far (pages of
// `/api/sessions/{id}/calls`). Then flattened to the rows of a virtualized list.
import { callEndNs, callStartNs, compareCalls } from "./ns";
import { worstSeverity } from "./severity";
import type { CallSummary, ConversationInfo, NsValue, TurnInfo } from "./types";

export const NO_CONVERSATION = "(no conversation)";

export type CallNode = {
  call: CallSummary;
  /** position in display order (0-based) */
  index: number;
  conversationKey: string;
  turnKey: string;
  /** index of the first input message this call adds to its conversation's history */
  newFrom: number;
  /** the previous call of the same conversation, if loaded */
  prevCallId: string | null;
  severity: string | null;
};

export type TurnNode = {
  key: string;
  turnId: string | null;
  info: TurnInfo | null;
  calls: CallNode[];
  startNs: bigint;
  endNs: bigint;
  markerCount: number;
};

export type ConversationNode = {
  key: string;
  conversationId: string | null;
  info: ConversationInfo | null;
  turns: TurnNode[];
  loadedCalls: number;
  /** calls the server knows of (from the session detail), at least the loaded ones */
  totalCalls: number;
  markerCount: number;
  severity: string | null;
  brickedSinceCallId: string | null;
  startNs: bigint;
  endNs: bigint;
};

export type Trajectory = {
  conversations: ConversationNode[];
  /** every loaded call in display order */
  order: CallNode[];
  byId: Map<string, CallNode>;
  startNs: bigint | null;
  endNs: bigint | null;
};

/**
 * Where a call's new messages start: the previous call of the conversation sent `k` input
 * messages and got `m` back, so this call's history repeats those `k + m` first (when it
 * still has at least that many; otherwise the history was rewritten and all of it is new).
 */
export function newMessageStart(prev: CallSummary | undefined | null, call: CallSummary): number {
  const count = call.input_message_count ?? 0;
  if (!prev) return 0;
  const known = (prev.input_message_count ?? 0) + (prev.output_message_count ?? 0);
  return known > 0 && known <= count ? known : 0;
}

/** Unique calls in time order (pages may overlap after a refetch). */
export function sortCalls(calls: CallSummary[]): CallSummary[] {
  const seen = new Map<string, CallSummary>();
  for (const c of calls) seen.set(c.call_id, c);
  return [...seen.values()].sort(compareCalls);
}

type Builder = { node: ConversationNode; turns: Map<string, TurnNode>; lastSegment: TurnNode | null; prev: CallSummary | null };

/** A conversation's node, with nothing in it yet, from `startNs` to `endNs`. */
function newBuilder(key: string, conversationId: string | null, info: ConversationInfo | null, startNs: bigint, endNs: bigint): Builder {
  return {
    node: {
      key,
      conversationId,
      info,
      turns: [],
      loadedCalls: 0,
      totalCalls: info?.call_count ?? 0,
      markerCount: 0,
      severity: null,
      brickedSinceCallId: info?.bricked_since_call_id ?? null,
      startNs,
      endNs,
    },
    turns: new Map(),
    lastSegment: null,
    prev: null,
  };
}

/** First and last seen of a detail's conversation or turn, the last never before the first. */
function seenSpan(info: { first_seen_ns: NsValue; last_seen_ns: NsValue }): [bigint, bigint] {
  const first = BigInt(String(info.first_seen_ns));
  const last = BigInt(String(info.last_seen_ns));
  return [first, last > first ? last : first];
}

/**
 * Conversations and turns that have no call (a turn that failed or was dispatched before its first
 * call, a conversation opened by events only): the calls do not bring them, the session detail
 * does. Only those with none: one whose calls are still to load comes with them.
 */
function addCallless(conversations: ConversationInfo[], builders: Map<string, Builder>): void {
  for (const info of conversations) {
    let b = builders.get(info.conversation_id);
    if (!b) {
      if (info.call_count > 0) continue;
      b = newBuilder(info.conversation_id, info.conversation_id, info, ...seenSpan(info));
      builders.set(info.conversation_id, b);
    }
    for (const t of info.turns) {
      if (t.call_count > 0 || b.turns.has(t.turn_id)) continue;
      const [startNs, endNs] = seenSpan(t);
      const turn: TurnNode = { key: `${info.conversation_id}::${t.turn_id}`, turnId: t.turn_id, info: t, calls: [], startNs, endNs, markerCount: 0 };
      b.turns.set(t.turn_id, turn);
      b.node.turns.push(turn);
    }
  }
}

/** The session's conversations a view shows: all, or the one asked for (`?conversation=`). */
export function conversationsShown(conversations: ConversationInfo[], only: string | null): ConversationInfo[] {
  return only ? conversations.filter((c) => c.conversation_id === only) : conversations;
}

export function buildTrajectory(conversations: ConversationInfo[], calls: CallSummary[]): Trajectory {
  const convInfo = new Map(conversations.map((c) => [c.conversation_id, c]));
  const turnInfo = new Map<string, TurnInfo>();
  for (const c of conversations) for (const t of c.turns) turnInfo.set(t.turn_id, t);

  const builders = new Map<string, Builder>();
  const sorted = sortCalls(calls);

  for (const call of sorted) {
    const convKey = call.conversation_id ?? NO_CONVERSATION;
    let b = builders.get(convKey);
    if (!b) {
      const info = call.conversation_id ? convInfo.get(call.conversation_id) ?? null : null;
      b = newBuilder(convKey, call.conversation_id, info, callStartNs(call), callEndNs(call));
      builders.set(convKey, b);
    }
    // Calls with a turn id group by it; calls without one form runs of consecutive calls.
    let turn: TurnNode | undefined;
    if (call.turn_id) {
      turn = b.turns.get(call.turn_id);
      b.lastSegment = null;
    } else {
      turn = b.lastSegment ?? undefined;
    }
    if (!turn) {
      const key = call.turn_id ? `${convKey}::${call.turn_id}` : `${convKey}::none::${call.call_id}`;
      turn = {
        key,
        turnId: call.turn_id,
        info: call.turn_id ? turnInfo.get(call.turn_id) ?? null : null,
        calls: [],
        startNs: callStartNs(call),
        endNs: callEndNs(call),
        markerCount: 0,
      };
      if (call.turn_id) b.turns.set(call.turn_id, turn);
      else b.lastSegment = turn;
      b.node.turns.push(turn);
    }
    const node: CallNode = {
      call,
      index: -1,
      conversationKey: convKey,
      turnKey: turn.key,
      newFrom: newMessageStart(b.prev, call),
      prevCallId: b.prev?.call_id ?? null,
      severity: worstSeverity(call.interruptions.map((m) => m.severity)),
    };
    b.prev = call;
    turn.calls.push(node);
    const end = callEndNs(call);
    if (end > turn.endNs) turn.endNs = end;
    if (end > b.node.endNs) b.node.endNs = end;
    turn.markerCount += call.interruptions.length;
    b.node.markerCount += call.interruptions.length;
    b.node.loadedCalls += 1;
    if (node.severity) b.node.severity = worstSeverity([node.severity, ...(b.node.severity ? [b.node.severity] : [])]);
  }

  addCallless(conversations, builders);

  const convs = [...builders.values()].map((b) => {
    b.node.totalCalls = Math.max(b.node.totalCalls, b.node.loadedCalls);
    // Turns in order of their first call (a turn's calls may interleave with calls outside it).
    b.node.turns.sort((x, y) => (x.startNs < y.startNs ? -1 : x.startNs > y.startNs ? 1 : 0));
    return b.node;
  });
  convs.sort((x, y) => (x.startNs < y.startNs ? -1 : x.startNs > y.startNs ? 1 : x.key < y.key ? -1 : 1));

  const order: CallNode[] = [];
  const byId = new Map<string, CallNode>();
  for (const c of convs) {
    for (const t of c.turns) {
      for (const n of t.calls) {
        n.index = order.length;
        order.push(n);
        byId.set(n.call.call_id, n);
      }
    }
  }
  let startNs: bigint | null = null;
  let endNs: bigint | null = null;
  for (const c of convs) {
    if (startNs === null || c.startNs < startNs) startNs = c.startNs;
    if (endNs === null || c.endNs > endNs) endNs = c.endNs;
  }
  return { conversations: convs, order, byId, startNs, endNs };
}

export type Row =
  | { kind: "conversation"; key: string; conversation: ConversationNode; collapsed: boolean }
  | { kind: "turn"; key: string; turn: TurnNode; conversation: ConversationNode }
  | { kind: "call"; key: string; node: CallNode };

/**
 * The rows of the list: a header per conversation, a header per turn (calls outside any turn
 * have none), and one row per call. A collapsed conversation shows its header only.
 */
export function flattenRows(t: Trajectory, collapsed: ReadonlySet<string> = new Set()): Row[] {
  const rows: Row[] = [];
  for (const c of t.conversations) {
    const isCollapsed = collapsed.has(c.key);
    rows.push({ kind: "conversation", key: `c:${c.key}`, conversation: c, collapsed: isCollapsed });
    if (isCollapsed) continue;
    for (const turn of c.turns) {
      if (turn.turnId) rows.push({ kind: "turn", key: `t:${turn.key}`, turn, conversation: c });
      for (const n of turn.calls) rows.push({ kind: "call", key: `k:${n.call.call_id}`, node: n });
    }
  }
  return rows;
}

/** The row index of a call, or −1 when it is not among the rows (not loaded, or collapsed). */
export function rowIndexOfCall(rows: Row[], callId: string): number {
  return rows.findIndex((r) => r.kind === "call" && r.node.call.call_id === callId);
}

/** How a turn ended, for its chip: the end reason, or "open"/"unsettled" when it has none. */
export function turnEndLabel(info: TurnInfo | null, nowNs: bigint, staleMinutes: number): string {
  if (info?.end_reason) return info.end_reason;
  if (!info) return "open";
  const last = BigInt(String(info.last_seen_ns));
  return nowNs - last > BigInt(staleMinutes) * 60_000_000_000n ? "unsettled" : "open";
}
