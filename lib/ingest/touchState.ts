// A call's mark on the rows it belongs to: first and last seen, call counts and token totals of
// its session, conversation and turn, and its agent's activity span. Rows a batch sees first are
// created here (loaded rows come from batchState.ts).
import type { BatchState, ConversationState, SessionState, TurnState } from "./batchState";
import type { Prepared } from "./prepare";

/** Records call `p`, which ended (or started) at `at`, on its session, conversation, turn and agent. */
export function touchCall(state: BatchState, p: Prepared, at: bigint): { conversation: ConversationState; turn: TurnState } {
  const session = touchSession(state.sessions, p, at);
  const conversation = touchConversation(state.conversations, p, at);
  const turn = touchTurn(state.turns, p, at);
  touchAgent(state.agents, p.call.agent_name, p.call.start_ns, at);
  session.callCount += 1;
  conversation.callCount += 1;
  turn.callCount += 1;
  return { conversation, turn };
}

function touchSession(sessions: Map<string, SessionState>, { call, keys }: Prepared, at: bigint): SessionState {
  let s = sessions.get(keys.sessionId);
  if (!s) {
    s = {
      id: keys.sessionId, agentName: null, pid: null, host: null, processName: null,
      firstSeenNs: call.start_ns, lastSeenNs: at, callCount: 0, inputTokens: 0, outputTokens: 0,
      lastModel: null, isNew: true, dirty: false,
    };
    sessions.set(s.id, s);
  }
  s.agentName ??= call.agent_name ?? null;
  s.pid ??= call.pid ?? null;
  s.host ??= call.host ?? null;
  s.processName ??= call.process_name ?? null;
  if (call.start_ns < s.firstSeenNs) s.firstSeenNs = call.start_ns;
  if (at > s.lastSeenNs) s.lastSeenNs = at;
  // Session totals are 64-bit columns; they saturate where a JSON number stops being exact.
  s.inputTokens = Math.min(Number.MAX_SAFE_INTEGER, s.inputTokens + (call.input_tokens ?? 0));
  s.outputTokens = Math.min(Number.MAX_SAFE_INTEGER, s.outputTokens + (call.output_tokens ?? 0));
  s.lastModel = call.model ?? s.lastModel;
  s.dirty = true;
  return s;
}

function touchConversation(conversations: Map<string, ConversationState>, { call, keys }: Prepared, at: bigint): ConversationState {
  let c = conversations.get(keys.conversationId);
  if (!c) {
    c = {
      id: keys.conversationId, sessionId: keys.sessionId, firstSeenNs: call.start_ns, lastSeenNs: at,
      callCount: 0, brickedSinceCallId: null, state: { window: [], counts: {} }, isNew: true, dirty: false,
    };
    conversations.set(c.id, c);
  }
  if (call.start_ns < c.firstSeenNs) c.firstSeenNs = call.start_ns;
  if (at > c.lastSeenNs) c.lastSeenNs = at;
  c.dirty = true;
  return c;
}

function touchTurn(turns: Map<string, TurnState>, { call, keys }: Prepared, at: bigint): TurnState {
  let t = turns.get(keys.turnId);
  if (!t) {
    t = {
      id: keys.turnId, label: keys.turnLabel, conversationId: keys.conversationId, sessionId: keys.sessionId,
      firstSeenNs: call.start_ns, lastSeenNs: at, callCount: 0, endReason: null, isNew: true, dirty: false,
    };
    turns.set(t.id, t);
  }
  t.conversationId ??= keys.conversationId;
  if (call.start_ns < t.firstSeenNs) t.firstSeenNs = call.start_ns;
  if (at > t.lastSeenNs) t.lastSeenNs = at;
  t.dirty = true;
  return t;
}

function touchAgent(agents: BatchState["agents"], name: string | null | undefined, start: bigint, at: bigint): void {
  if (!name) return;
  const a = agents.get(name);
  if (!a) agents.set(name, { first: start, last: at });
  else {
    if (start < a.first) a.first = start;
    if (at > a.last) a.last = at;
  }
}
