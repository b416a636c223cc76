// Detection during call ingest: feeds each call to the pure rules of lib/detect (per-call
// failures, tool-call balance, the dead-loop window) and keeps what they find as interruption
// rows — one per finding, or, for retry storms and dead loops, one open row per conversation
// that later evidence updates (SPEC §3.4).
import type { DetectionConfig } from "../config/detection";
import { classifyCall, type CallFacts } from "../detect/call";
import { detectDeadLoop, pushWindow } from "../detect/deadLoop";
import type { Finding } from "../detect/types";
import { groupKey, type ConversationState, type GroupedState, type TurnState } from "./batchState";
import { buildInterruption, type InterruptionContext, type InterruptionRow } from "./interruptions";
import { interruptionId } from "./keys";
import type { Prepared } from "./prepare";
import { redactValue } from "./redact";

/** Turn endings that suspend or hand off a turn: an empty answer there is not a failure. */
export const NON_FAILURE_TURN_ENDS = new Set(["steered", "drained", "dispatched", "awaiting"]);

/** Where a call's interruptions point. */
export function interruptionContext({ call, keys }: Prepared): InterruptionContext {
  return {
    sessionId: keys.sessionId,
    conversationId: keys.conversationId,
    turnId: keys.turnId,
    callId: call.call_id,
    traceId: call.trace_id ?? null,
    pid: call.pid ?? null,
    agentName: call.agent_name ?? null,
    model: call.model ?? null,
  };
}

/** The interruptions a batch of calls finds, in the order found. */
export class BatchDetection {
  /** one-off interruptions by id; those already stored are skipped when written */
  readonly candidates = new Map<string, InterruptionRow>();
  /** sessions with a dead-loop detection in this batch (the dead-loop action looks at them after commit) */
  readonly deadLoopSessions = new Set<string>();

  /** `grouped`: the open retry_storm and dead_loop rows of the batch's conversations, updated in place. */
  constructor(
    readonly cfg: DetectionConfig,
    readonly grouped: Map<string, GroupedState>,
  ) {}

  /** Keeps a one-off finding; the first finding under an id wins. */
  candidate(id: string, f: Finding, at: bigint, ctx: InterruptionContext): void {
    if (!this.candidates.has(id)) this.candidates.set(id, buildInterruption(id, f.type, f.detail, at, ctx, this.cfg));
  }

  /**
   * Runs the call rules on `p` (which ended at `at`) and updates its conversation's detection
   * state. Returns the call's tool-call imbalance as stored with it (null when balanced).
   */
  detectCall(p: Prepared, conversation: ConversationState, turn: TurnState, at: bigint, ctx: InterruptionContext): string | null {
    const { call, imbalance } = p;
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
      outputPartCount: p.outputPartCount,
      recordingTruncated: (call.recording_truncated ?? 0) > 0,
      model: call.model ?? null,
      maxTokens: call.max_tokens ?? null,
      inputTokens: call.input_tokens ?? null,
      outputTokens: call.output_tokens ?? null,
      responseInvalid: call.response_invalid === true,
      unbalanced: imbalance,
      brickedSinceCallId: conversation.brickedSinceCallId,
    };
    const { failure, extras } = this.cfg.enabled ? classifyCall(facts, this.cfg) : { failure: null, extras: [] };
    for (const f of failure ? [failure] : extras) this.candidate(interruptionId(call.call_id, f.type), f, at, ctx);
    // The first unanswered tool call bricks the conversation: every later request fails (SPEC §3.2).
    if (imbalance && !conversation.brickedSinceCallId) {
      conversation.brickedSinceCallId = call.call_id;
      conversation.dirty = true;
    }
    if (this.cfg.enabled) {
      if (failure) this.countFailure(conversation, failure.type, at, ctx);
      this.checkDeadLoop(conversation, p, at, ctx);
    }
    return imbalance && JSON.stringify(imbalance);
  }

  /** Opens or updates the conversation's one open grouped interruption of this kind. */
  private upsertGrouped(conv: ConversationState, f: Finding, repeatedType: string, at: bigint, ctx: InterruptionContext): void {
    const key = groupKey(conv.id, f.type, repeatedType);
    const open = this.grouped.get(key);
    const opened = () => buildInterruption(interruptionId(conv.id, f.type, repeatedType, ctx.callId ?? ""), f.type, f.detail, at, ctx, this.cfg);
    if (!open) {
      this.grouped.set(key, { row: opened(), isNew: true, dirty: false });
      return;
    }
    addEvidence(open.row, f, at);
    if (!open.isNew) {
      if (open.successor) addEvidence(open.successor, f, at);
      else open.successor = opened();
    }
    open.dirty = true;
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
}

/** One more occurrence of a grouped interruption. */
function addEvidence(row: InterruptionRow, f: Finding, at: bigint): void {
  row.occurrences += 1;
  if (at > row.lastSeenNs) row.lastSeenNs = at;
  row.detail = JSON.stringify(redactValue(f.detail));
}
