// Ingest of normalized calls (SPEC §2.1, §3): one transaction per batch; calls already stored
// are skipped (call_id is the idempotency key); detection runs on the same data, in the same
// transaction, before anything is written.
import { detectionConfig, type DetectionConfig } from "../config/detection";
import { existingIds, insertRows } from "../db/bulk";
import type { Db } from "../db/client";
import { lockKeys, transaction, type Sql } from "../db/sql";
import { classifyCall, type CallFacts } from "../detect/call";
import { detectDeadLoop, pushWindow } from "../detect/deadLoop";
import { toolBalance } from "../detect/toolBalance";
import type { Finding } from "../detect/types";
import {
  groupKey,
  loadConversations,
  loadOpenGrouped,
  loadSessions,
  loadToolCalls,
  loadTurns,
  type ConversationState,
  type GroupedState,
  type SessionState,
  type ToolCallState,
  type TurnState,
} from "./batchState";
import { emitDeadLoopDetections } from "./afterCommit";
import { buildInterruption, type InterruptionContext, type InterruptionRow } from "./interruptions";
import { interruptionId, toolCallRowId, toolInterruptionId, type CallKeys } from "./keys";
import type { MessageNode } from "./messages";
import { prepareCall, toolResultFacts, type Prepared, type StoredBlob } from "./prepare";
import { redactValue, storedArguments } from "./redact";
import { MAX_INT, type ChatMessage, type NormalizedCall, type ToolCallPart } from "./types";

export type IngestResult = { received: number; accepted: number; duplicates: number; interruptions: number };

/** Turn endings that suspend or hand off a turn: an empty answer there is not a failure. */
export const NON_FAILURE_TURN_ENDS = new Set(["steered", "drained", "dispatched", "awaiting"]);

/** Fresh calls of the batch: not stored yet, first occurrence only, in time order. */
async function freshCalls(sql: Sql, prepared: Prepared[]): Promise<Prepared[]> {
  const stored = await existingIds(sql, "Call", prepared.map((p) => p.call.call_id));
  const seen = new Set<string>();
  const fresh = prepared.filter(({ call: c }) => {
    if (stored.has(c.call_id) || seen.has(c.call_id)) return false;
    seen.add(c.call_id);
    return true;
  });
  return fresh.sort((a, b) => (a.call.start_ns < b.call.start_ns ? -1 : a.call.start_ns > b.call.start_ns ? 1 : 0));
}

/**
 * Which message nodes already exist. A node is stored only with its ancestors, so existence is
 * prefix-closed along a chain: probing the last few input nodes (and the outputs) usually
 * settles a whole history; only histories with no hit there are probed in full.
 */
async function knownNodes(sql: Sql, prepared: Prepared[]): Promise<Set<string>> {
  const known = await existingIds(sql, "Message", prepared.flatMap((p) => [...p.input.slice(-3), ...p.output].map((n) => n.id)));
  const batch = new Set<string>();
  const fallback: string[] = [];
  for (const p of prepared) {
    const tail = p.input.slice(-3);
    if (p.input.length > 3 && !tail.some((n) => known.has(n.id) || batch.has(n.id))) {
      fallback.push(...p.input.slice(0, -3).map((n) => n.id));
    }
    for (const n of p.input) batch.add(n.id);
    for (const n of p.output) batch.add(n.id);
  }
  for (const id of await existingIds(sql, "Message", fallback)) known.add(id);
  return known;
}

/** Sets each call's `newInputStart`: the input nodes after it appear for the first time. */
function markNewSuffixes(prepared: Prepared[], known: Set<string>): void {
  const seen = new Set<string>();
  for (const p of prepared) {
    p.newInputStart = lastKnownIndex(p.input, known, seen) + 1;
    for (const n of p.input) seen.add(n.id);
    for (const n of p.output) seen.add(n.id);
  }
}

/** Index of the last node of `nodes` that exists (in the database or written by this batch). */
function lastKnownIndex(nodes: MessageNode[], known: Set<string>, written: Set<string>): number {
  for (let i = nodes.length - 1; i >= 0; i--) if (known.has(nodes[i].id) || written.has(nodes[i].id)) return i;
  return -1;
}

const outputParts = (messages: ChatMessage[]) =>
  messages.reduce((n, m) => n + m.parts.filter((p) => p.type !== "reasoning" || p.content.trim() !== "").length, 0);

class CallBatch {
  readonly sessions: Map<string, SessionState>;
  readonly conversations: Map<string, ConversationState>;
  readonly turns: Map<string, TurnState>;
  readonly grouped: Map<string, GroupedState>;
  readonly toolCalls: Map<string, ToolCallState>;
  readonly known: Set<string>;
  readonly agents = new Map<string, { first: bigint; last: bigint }>();
  readonly writtenNodes = new Set<string>();
  readonly messages: (MessageNode & { conversationId: string })[] = [];
  readonly blobs = new Map<string, string>();
  readonly callRows: ReturnType<CallBatch["callRow"]>[] = [];
  readonly candidates = new Map<string, InterruptionRow>();
  /** sessions with a dead-loop detection in this batch (the dead-loop action looks at them after commit) */
  readonly deadLoopSessions = new Set<string>();

  constructor(
    readonly cfg: DetectionConfig,
    state: {
      sessions: Map<string, SessionState>;
      conversations: Map<string, ConversationState>;
      turns: Map<string, TurnState>;
      grouped: Map<string, GroupedState>;
      toolCalls: Map<string, ToolCallState>;
      known: Set<string>;
    },
  ) {
    this.sessions = state.sessions;
    this.conversations = state.conversations;
    this.turns = state.turns;
    this.grouped = state.grouped;
    this.toolCalls = state.toolCalls;
    this.known = state.known;
  }

  add(p: Prepared): void {
    const { call, keys } = p;
    const at = p.endNs ?? call.start_ns;
    const session = this.touchSession(p, at);
    const conversation = this.touchConversation(p, at);
    const turn = this.touchTurn(p, at);
    this.touchAgent(call.agent_name, call.start_ns, at);

    const newInput = p.input.slice(p.newInputStart);
    this.storeNodes(keys.conversationId, newInput);
    this.storeNodes(keys.conversationId, p.output.slice(lastKnownIndex(p.output, this.known, this.writtenNodes) + 1));
    const ctx: InterruptionContext = {
      sessionId: keys.sessionId,
      conversationId: keys.conversationId,
      turnId: keys.turnId,
      callId: call.call_id,
      traceId: call.trace_id ?? null,
      pid: call.pid ?? null,
      agentName: call.agent_name ?? null,
      model: call.model ?? null,
    };
    this.recordToolCalls(p, newInput, ctx);

    const balance = toolBalance(call.input_messages);
    const facts: CallFacts = {
      statusCode: call.status_code ?? null,
      error: call.error ?? null,
      responseBody: call.response_body ?? null,
      isSse: call.is_sse === true,
      sseDone: call.sse_done ?? null,
      finishReasons: call.finish_reasons ?? [],
      durationMs: p.endNs === null ? null : Number(p.endNs - call.start_ns) / 1e6,
      cancelled: call.cancelled === true,
      turnSuspended: NON_FAILURE_TURN_ENDS.has(turn.endReason ?? ""),
      outputPartCount: outputParts(call.output_messages),
      model: call.model ?? null,
      maxTokens: call.max_tokens ?? null,
      inputTokens: call.input_tokens ?? null,
      outputTokens: call.output_tokens ?? null,
      responseInvalid: call.response_invalid === true,
      unbalanced: balance.balanced ? null : balance,
      brickedSinceCallId: conversation.brickedSinceCallId,
    };
    const { failure, extras } = this.cfg.enabled ? classifyCall(facts, this.cfg) : { failure: null, extras: [] };
    for (const f of failure ? [failure] : extras) this.candidate(interruptionId(call.call_id, f.type), f, at, ctx);
    if (!balance.balanced && !conversation.brickedSinceCallId) {
      conversation.brickedSinceCallId = call.call_id;
      conversation.dirty = true;
    }
    if (this.cfg.enabled) {
      if (failure) this.countFailure(conversation, failure.type, at, ctx);
      this.checkDeadLoop(conversation, p, at, ctx);
    }
    this.callRows.push(this.callRow(p, balance.balanced ? null : JSON.stringify(balance)));
    session.callCount += 1;
    conversation.callCount += 1;
    turn.callCount += 1;
  }

  private touchSession({ call, keys }: Prepared, at: bigint): SessionState {
    let s = this.sessions.get(keys.sessionId);
    if (!s) {
      s = {
        id: keys.sessionId, agentName: null, pid: null, host: null, processName: null,
        firstSeenNs: call.start_ns, lastSeenNs: at, callCount: 0, inputTokens: 0, outputTokens: 0,
        lastModel: null, isNew: true, dirty: false,
      };
      this.sessions.set(s.id, s);
    }
    s.agentName ??= call.agent_name ?? null;
    s.pid ??= call.pid ?? null;
    s.host ??= call.host ?? null;
    s.processName ??= call.process_name ?? null;
    if (call.start_ns < s.firstSeenNs) s.firstSeenNs = call.start_ns;
    if (at > s.lastSeenNs) s.lastSeenNs = at;
    // Session totals saturate at the largest Int rather than overflow the column.
    s.inputTokens = Math.min(MAX_INT, s.inputTokens + (call.input_tokens ?? 0));
    s.outputTokens = Math.min(MAX_INT, s.outputTokens + (call.output_tokens ?? 0));
    s.lastModel = call.model ?? s.lastModel;
    s.dirty = true;
    return s;
  }

  private touchConversation({ call, keys }: Prepared, at: bigint): ConversationState {
    let c = this.conversations.get(keys.conversationId);
    if (!c) {
      c = {
        id: keys.conversationId, sessionId: keys.sessionId, firstSeenNs: call.start_ns, lastSeenNs: at,
        callCount: 0, brickedSinceCallId: null, state: { window: [], counts: {} }, isNew: true, dirty: false,
      };
      this.conversations.set(c.id, c);
    }
    if (call.start_ns < c.firstSeenNs) c.firstSeenNs = call.start_ns;
    if (at > c.lastSeenNs) c.lastSeenNs = at;
    c.dirty = true;
    return c;
  }

  private touchTurn({ call, keys }: Prepared, at: bigint): TurnState {
    let t = this.turns.get(keys.turnId);
    if (!t) {
      t = {
        id: keys.turnId, conversationId: keys.conversationId, sessionId: keys.sessionId,
        firstSeenNs: call.start_ns, lastSeenNs: at, callCount: 0, endReason: null, isNew: true, dirty: false,
      };
      this.turns.set(t.id, t);
    }
    t.conversationId ??= keys.conversationId;
    if (call.start_ns < t.firstSeenNs) t.firstSeenNs = call.start_ns;
    if (at > t.lastSeenNs) t.lastSeenNs = at;
    t.dirty = true;
    return t;
  }

  private touchAgent(name: string | null | undefined, start: bigint, at: bigint): void {
    if (!name) return;
    const a = this.agents.get(name);
    if (!a) this.agents.set(name, { first: start, last: at });
    else {
      if (start < a.first) a.first = start;
      if (at > a.last) a.last = at;
    }
  }

  /** Queues the nodes not stored yet. */
  private storeNodes(conversationId: string, nodes: MessageNode[]): void {
    for (const n of nodes) {
      if (this.writtenNodes.has(n.id)) continue;
      this.writtenNodes.add(n.id);
      this.messages.push({ ...n, conversationId }); // parts are masked already (prepareCall)
    }
  }

  /** Tool calls and responses that first appear in this call; each response is judged once. */
  private recordToolCalls(p: Prepared, newInput: MessageNode[], ctx: InterruptionContext): void {
    const { call, keys } = p;
    // The name of a tool call answered here, from its stored row or, failing that, the history.
    const nameOf = (id: string) => {
      for (const m of call.input_messages) for (const part of m.parts) if (part.type === "tool_call" && part.id === id) return part.name;
      return "";
    };

    // A tool call belongs to the call whose output made it; one first seen in a history (its
    // maker not ingested yet) is recorded without a maker, which claims it when it arrives.
    const fromHistory = call.input_messages.slice(call.input_messages.length - newInput.length).map((m) => ({ m, made: false }));
    const fromOutput = call.output_messages.map((m) => ({ m, made: true }));
    for (const { m, made } of [...fromHistory, ...fromOutput]) {
      for (const part of m.parts) {
        if (part.type === "tool_call") this.toolCall(keys, part, p.toolArguments.get(part.id), made ? call.call_id : null, call.start_ns);
        if (part.type !== "tool_call_response") continue;
        const known = this.toolCalls.get(toolCallRowId(keys.sessionId, part.id));
        const name = known?.name ?? nameOf(part.id);
        const tc = this.toolCall(keys, { type: "tool_call", id: part.id, name, arguments: undefined }, undefined, null, call.start_ns);
        if (tc.response !== null) continue; // already judged (e.g. from a tool_result event)
        // read in prepareCall, unless an earlier call carried it without storing it
        const { response, finding } = p.toolResults.get(part.id) ?? toolResultFacts(part.response, part.is_error ?? null);
        tc.response = response;
        tc.success = part.is_error === true ? false : tc.success ?? true;
        tc.dirty = true;
        if (finding) {
          const detail = { ...finding.detail, tool_call_id: part.id, tool_name: tc.name };
          this.candidate(toolInterruptionId(keys.sessionId, part.id), { type: finding.type, detail }, call.start_ns, ctx);
        }
      }
    }
  }

  private toolCall(keys: CallKeys, part: ToolCallPart, storedArgs: string | undefined, makerCallId: string | null, at: bigint): ToolCallState {
    const id = toolCallRowId(keys.sessionId, part.id);
    let tc = this.toolCalls.get(id);
    if (!tc) {
      tc = {
        id, sessionId: keys.sessionId, conversationId: keys.conversationId, callId: makerCallId, toolCallId: part.id,
        name: part.name || null, arguments: null, response: null, success: null, error: null,
        durationNs: null, atNs: at, isNew: true, dirty: false,
      };
      this.toolCalls.set(id, tc);
    }
    if (makerCallId && tc.callId !== makerCallId) {
      tc.callId = makerCallId;
      tc.atNs = at;
      tc.dirty = true;
    }
    if (part.name && !tc.name) tc.name = part.name;
    if (part.arguments !== undefined && tc.arguments === null) {
      tc.arguments = storedArgs ?? storedArguments(part.arguments);
      tc.dirty = true;
    }
    return tc;
  }

  private candidate(id: string, f: Finding, at: bigint, ctx: InterruptionContext): void {
    if (!this.candidates.has(id)) this.candidates.set(id, buildInterruption(id, f.type, f.detail, at, ctx, this.cfg));
  }

  /** Opens or updates the conversation's one open grouped interruption of this kind. */
  private upsertGrouped(conv: ConversationState, f: Finding, repeatedType: string, at: bigint, ctx: InterruptionContext): void {
    const key = groupKey(conv.id, f.type, repeatedType);
    const open = this.grouped.get(key);
    if (open) {
      open.row.occurrences += 1;
      if (at > open.row.lastSeenNs) open.row.lastSeenNs = at;
      open.row.detail = JSON.stringify(redactValue(f.detail));
      open.dirty = true;
      return;
    }
    const id = interruptionId(conv.id, f.type, repeatedType, ctx.callId ?? "");
    this.grouped.set(key, { row: buildInterruption(id, f.type, f.detail, at, ctx, this.cfg), isNew: true, dirty: false });
  }

  private countFailure(conv: ConversationState, type: string, at: bigint, ctx: InterruptionContext): void {
    const count = (conv.state.counts[type] ?? 0) + 1;
    conv.state.counts[type] = count;
    if (count >= this.cfg.retryStormCount) {
      this.upsertGrouped(conv, { type: "retry_storm", detail: { repeated_type: type, count } }, type, at, ctx);
    }
  }

  private checkDeadLoop(conv: ConversationState, p: Prepared, at: bigint, ctx: InterruptionContext): void {
    conv.state.window = pushWindow(conv.state.window, p.summary, this.cfg.loop.window);
    const loop = detectDeadLoop(conv.state.window, this.cfg.loop);
    if (!loop) return;
    this.upsertGrouped(conv, { type: "dead_loop", detail: { ...loop } }, "", at, ctx);
    if (ctx.sessionId) this.deadLoopSessions.add(ctx.sessionId);
  }

  private blob(b: StoredBlob | null): string | null {
    if (!b) return null;
    this.blobs.set(b.id, b.content);
    return b.id;
  }

  private callRow(p: Prepared, balance: string | null) {
    const { call, keys } = p;
    return {
      id: call.call_id,
      traceId: call.trace_id ?? null,
      sessionId: keys.sessionId,
      conversationId: keys.conversationId,
      turnId: keys.turnId,
      agentName: call.agent_name ?? null,
      provider: call.provider ?? null,
      model: call.model ?? null,
      serverAddress: call.server_address ?? null,
      startNs: call.start_ns,
      endNs: p.endNs,
      durationNs: p.endNs === null ? null : p.endNs - call.start_ns,
      statusCode: call.status_code ?? null,
      error: call.error ?? null,
      responseBody: call.response_body ?? null,
      isSse: call.is_sse ?? null,
      sseEventCount: call.sse_event_count ?? null,
      sseDone: call.sse_done ?? null,
      cancelled: call.cancelled === true,
      maxTokens: call.max_tokens ?? null,
      inputTokens: call.input_tokens ?? null,
      outputTokens: call.output_tokens ?? null,
      cacheReadTokens: call.cache_read_tokens ?? null,
      cacheCreationTokens: call.cache_creation_tokens ?? null,
      finishReasons: call.finish_reasons ? JSON.stringify(call.finish_reasons) : null,
      systemBlobId: this.blob(p.systemBlob),
      toolsBlobId: this.blob(p.toolsBlob),
      inputTailId: p.input.at(-1)?.id ?? null,
      inputCount: p.input.length,
      outputTailId: p.output.at(-1)?.id ?? null,
      outputCount: p.output.length,
      balance,
      extra: p.extra,
    };
  }

  async write(sql: Sql): Promise<number> {
    const agents = [...this.agents].map(([name, a]) => ({ name, firstSeenNs: a.first, lastSeenNs: a.last }));
    await insertRows(sql, "Agent", agents, { key: ["name"], update: ["lastSeenNs"] });
    await insertRows(sql, "Session", touched(this.sessions).map(({ isNew: _n, dirty: _d, ...row }) => row), { key: ["id"], update: "all" });
    await insertRows(
      sql,
      "Conversation",
      touched(this.conversations).map((c) => ({
        id: c.id, sessionId: c.sessionId, firstSeenNs: c.firstSeenNs, lastSeenNs: c.lastSeenNs,
        callCount: c.callCount, brickedSinceCallId: c.brickedSinceCallId, detectState: JSON.stringify(c.state),
      })),
      { key: ["id"], update: "all" },
    );
    // endReason belongs to turn_end events; calls never change it
    await insertRows(sql, "Turn", touched(this.turns).map(({ isNew: _n, dirty: _d, ...row }) => row), {
      key: ["id"],
      update: ["conversationId", "firstSeenNs", "lastSeenNs", "callCount"],
    });
    const blobs = [...this.blobs].map(([id, content]) => ({ id, content }));
    await insertRows(sql, "Blob", blobs, { key: ["id"], update: "nothing" });
    await insertRows(sql, "Message", this.messages, { key: ["id"], update: "nothing" });
    await insertRows(sql, "Call", this.callRows, { key: ["id"], update: "nothing" });
    await insertRows(sql, "ToolCall", touched(this.toolCalls).map(({ isNew: _n, dirty: _d, ...row }) => row), { key: ["id"], update: "all" });
    return this.writeInterruptions(sql);
  }

  private async writeInterruptions(sql: Sql): Promise<number> {
    const ids = [...this.candidates.keys()];
    const stored = await existingIds(sql, "Interruption", ids);
    const fresh = ids.filter((id) => !stored.has(id)).map((id) => this.candidates.get(id)!);
    await insertRows(sql, "Interruption", fresh, { key: ["id"], update: "nothing" });
    const grouped = touched(this.grouped);
    await insertRows(sql, "Interruption", grouped.map((g) => g.row), { key: ["id"], update: ["occurrences", "lastSeenNs", "detail"] });
    return fresh.length + grouped.filter((g) => g.isNew).length;
  }
}

function touched<T extends { isNew: boolean; dirty: boolean }>(items: Map<string, T>): T[] {
  return [...items.values()].filter((i) => i.isNew || i.dirty);
}

/** Tool call ids in the messages a call adds (its new history suffix and its output). */
function newToolCallIds(prepared: Prepared[]): string[] {
  const ids: string[] = [];
  for (const { call, keys, newInputStart } of prepared) {
    for (const m of [...call.input_messages.slice(newInputStart), ...call.output_messages]) {
      for (const part of m.parts) {
        if (part.type === "tool_call" || part.type === "tool_call_response") ids.push(toolCallRowId(keys.sessionId, part.id));
      }
    }
  }
  return ids;
}

/** Stores a batch of normalized calls and their interruptions, atomically and idempotently. */
export function ingestCalls(db: Db, calls: NormalizedCall[], cfg: DetectionConfig = detectionConfig()): Promise<IngestResult> {
  return ingestPrepared(db, calls.map(prepareCall), cfg);
}

/** `ingestCalls` of calls read by `prepareCall` (perhaps on another thread). */
export async function ingestPrepared(db: Db, calls: Prepared[], cfg: DetectionConfig = detectionConfig()): Promise<IngestResult> {
  const deadLoopSessions: string[] = [];
  const result = await transaction(db, async (sql) => {
    await lockKeys(sql, calls.map((p) => p.keys.sessionId)); // a session's state is read, then rewritten
    const prepared = await freshCalls(sql, calls);
    const result: IngestResult = { received: calls.length, accepted: prepared.length, duplicates: calls.length - prepared.length, interruptions: 0 };
    if (!prepared.length) return result;
    const known = await knownNodes(sql, prepared);
    markNewSuffixes(prepared, known);
    const conversationIds = prepared.map((p) => p.keys.conversationId);
    const batch = new CallBatch(cfg, {
      sessions: await loadSessions(sql, prepared.map((p) => p.keys.sessionId)),
      conversations: await loadConversations(sql, conversationIds),
      turns: await loadTurns(sql, prepared.map((p) => p.keys.turnId)),
      grouped: await loadOpenGrouped(sql, conversationIds),
      toolCalls: await loadToolCalls(sql, newToolCallIds(prepared)),
      known,
    });
    for (const p of prepared) batch.add(p);
    result.interruptions = await batch.write(sql);
    deadLoopSessions.push(...batch.deadLoopSessions);
    return result;
  });
  emitDeadLoopDetections(deadLoopSessions); // committed: listeners may act (never inside the transaction)
  return result;
}
