// Row mapping for call ingest: a prepared call as its Call row (with the blobs it points at), and
// the batch state as the rows of its tables.
import type { ConversationState, SessionState, ToolCallState, TurnState } from "./batchState";
import { detectStateJson } from "./detectState";
import type { Prepared, StoredBlob } from "./prepare";

export type CallRow = ReturnType<typeof callRow>;

function callRow(p: Prepared, balance: string | null) {
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
    systemBlobId: p.systemBlob?.id ?? null,
    toolsBlobId: p.toolsBlob?.id ?? null,
    inputTailId: p.input.at(-1)?.id ?? null,
    inputCount: p.input.length,
    outputTailId: p.output.at(-1)?.id ?? null,
    outputCount: p.output.length,
    balance,
    extra: p.extra,
    recordingTruncated: call.recording_truncated ?? null,
  };
}

/** The Call rows of a batch and the blobs (system prompts, tool lists) they point at, each blob once. */
export class CallRows {
  readonly rows: CallRow[] = [];
  /** blob id → content; calls of a conversation mostly share their blobs */
  readonly blobs = new Map<string, string>();

  /** `balance`: the call's tool-call imbalance as JSON, or null. */
  add(p: Prepared, balance: string | null): void {
    this.keep(p.systemBlob);
    this.keep(p.toolsBlob);
    this.rows.push(callRow(p, balance));
  }

  private keep(b: StoredBlob | null): void {
    if (b) this.blobs.set(b.id, b.content);
  }
}

/** Drops the change tracking (`isNew`, `dirty`), which is no column. */
const untracked = <T extends { isNew: boolean; dirty: boolean }>({ isNew: _n, dirty: _d, ...row }: T) => row;

export const sessionRow = (s: SessionState) => untracked(s);
export const turnRow = (t: TurnState) => untracked(t);
export const toolCallRow = ({ hasArguments: _a, hasResponse: _r, ...tc }: ToolCallState) => untracked(tc);

/** The detection state (dead-loop window, failure counts) is stored with the conversation. */
export const conversationRow = (c: ConversationState) => ({
  id: c.id, sessionId: c.sessionId, firstSeenNs: c.firstSeenNs, lastSeenNs: c.lastSeenNs,
  callCount: c.callCount, brickedSinceCallId: c.brickedSinceCallId, detectState: detectStateJson(c.state),
});

export const agentRow = ([name, a]: [string, { first: bigint; last: bigint }]) => ({ name, firstSeenNs: a.first, lastSeenNs: a.last });
