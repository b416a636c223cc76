// The rows an ingest batch reads and changes, loaded once per batch and written back at the
// end, so a batch of N calls costs a handful of queries rather than N round trips each.
import { selectIn } from "../db/multiRow";
import { toInterruption } from "../db/queries/interruptions";
import { asBigInt, asBool, asNumber, asText, type Row, type Sql } from "../db/sql";
import { parseDetectState, type DetectState } from "./detectState";
import type { InterruptionRow } from "./interruptions";
import type { Prepared } from "./prepare";

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
  label: string | null;
  conversationId: string | null;
  sessionId: string | null;
  firstSeenNs: bigint;
  lastSeenNs: bigint;
  callCount: number;
  endReason: string | null;
}>;

/**
 * An open grouped interruption (dead_loop, retry_storm) that new evidence updates. `successor`:
 * for a stored one, the interruption this batch's evidence opens instead if it is resolved
 * before the batch writes (triage in another transaction; SPEC §3.4: it then fires again).
 */
export type GroupedState = Tracked<{ row: InterruptionRow; successor?: InterruptionRow }>;

/**
 * A tool call's row. Its arguments and result are not read back (a tool's output may be large,
 * and later calls carry it again): a stored row reads with both null and says whether it holds
 * them; null is written as "keep what is stored" (`TOOL_CALL_WRITE`).
 */
export type ToolCallState = Tracked<{
  id: string;
  sessionId: string | null;
  conversationId: string | null;
  callId: string | null;
  toolCallId: string;
  name: string | null;
  /** to write: null unless this batch learnt them */
  arguments: string | null;
  response: string | null;
  success: boolean | null;
  error: string | null;
  durationNs: bigint | null;
  atNs: bigint | null;
  /** stored or learnt */
  hasArguments: boolean;
  /** stored or learnt: the result has been judged */
  hasResponse: boolean;
}>;

/** An agent's first and last activity in a batch (agent rows are only upserted, never read). */
export type AgentSpan = { first: bigint; last: bigint };

/** The rows a batch of calls reads and changes, keyed by id. */
export type BatchState = {
  sessions: Map<string, SessionState>;
  conversations: Map<string, ConversationState>;
  turns: Map<string, TurnState>;
  grouped: Map<string, GroupedState>;
  toolCalls: Map<string, ToolCallState>;
  agents: Map<string, AgentSpan>;
};

export const GROUPED_TYPES = ["dead_loop", "retry_storm"] as const;

export function groupKey(conversationId: string, type: string, repeatedType = ""): string {
  return `${conversationId}|${type}|${repeatedType}`;
}

const toSession = (r: Row): SessionState => ({
  id: String(r.id),
  agentName: asText(r.agentName),
  pid: asNumber(r.pid),
  host: asText(r.host),
  processName: asText(r.processName),
  firstSeenNs: asBigInt(r.firstSeenNs)!,
  lastSeenNs: asBigInt(r.lastSeenNs)!,
  callCount: asNumber(r.callCount)!,
  inputTokens: asNumber(r.inputTokens)!,
  outputTokens: asNumber(r.outputTokens)!,
  lastModel: asText(r.lastModel),
  isNew: false,
  dirty: false,
});

const toConversation = (r: Row): ConversationState => ({
  id: String(r.id),
  sessionId: asText(r.sessionId),
  firstSeenNs: asBigInt(r.firstSeenNs)!,
  lastSeenNs: asBigInt(r.lastSeenNs)!,
  callCount: asNumber(r.callCount)!,
  brickedSinceCallId: asText(r.brickedSinceCallId),
  state: parseDetectState(String(r.detectState)),
  isNew: false,
  dirty: false,
});

const toTurn = (r: Row): TurnState => ({
  id: String(r.id),
  label: asText(r.label),
  conversationId: asText(r.conversationId),
  sessionId: asText(r.sessionId),
  firstSeenNs: asBigInt(r.firstSeenNs)!,
  lastSeenNs: asBigInt(r.lastSeenNs)!,
  callCount: asNumber(r.callCount)!,
  endReason: asText(r.endReason),
  isNew: false,
  dirty: false,
});

/** The columns detection writes (lifecycle columns keep their stored values). */
const INTERRUPTION_ROW_KEYS = [
  "id", "sessionId", "conversationId", "turnId", "callId", "traceId", "pid", "agentName", "model", "type",
  "severity", "occurredAtNs", "lastSeenNs", "occurrences", "detail", "fingerprint", "createdAtNs",
] as const satisfies readonly (keyof InterruptionRow)[];

function toInterruptionRow(r: Row): InterruptionRow {
  const full = toInterruption(r);
  return Object.fromEntries(INTERRUPTION_ROW_KEYS.map((k) => [k, full[k]])) as InterruptionRow;
}

const toToolCall = (r: Row): ToolCallState => ({
  id: String(r.id),
  sessionId: asText(r.sessionId),
  conversationId: asText(r.conversationId),
  callId: asText(r.callId),
  toolCallId: String(r.toolCallId),
  name: asText(r.name),
  arguments: null,
  response: null,
  success: asBool(r.success),
  error: asText(r.error),
  durationNs: asBigInt(r.durationNs),
  atNs: asBigInt(r.atNs),
  hasArguments: asBool(r.hasArguments) === true,
  hasResponse: asBool(r.hasResponse) === true,
  isNew: false,
  dirty: false,
});

const TOOL_CALL_COLUMNS = `"id", "sessionId", "conversationId", "callId", "toolCallId", "name", "success", "error", "durationNs", "atNs", "arguments" IS NOT NULL AS "hasArguments", "response" IS NOT NULL AS "hasResponse"`;

const INTERRUPTION_COLUMNS = INTERRUPTION_ROW_KEYS.map((k) => `"${k}"`).join(", ");

async function loadById<T extends { id: string }>(sql: Sql, table: string, ids: string[], map: (r: Row) => T, select = "*"): Promise<Map<string, T>> {
  return new Map((await selectIn(sql, table, "id", ids, select)).map((r) => map(r)).map((t) => [t.id, t]));
}

export const loadSessions = (sql: Sql, ids: string[]) => loadById(sql, "Session", ids, toSession);
export const loadConversations = (sql: Sql, ids: string[]) => loadById(sql, "Conversation", ids, toConversation);
export const loadTurns = (sql: Sql, ids: string[]) => loadById(sql, "Turn", ids, toTurn);
export const loadToolCalls = (sql: Sql, ids: string[]) => loadById(sql, "ToolCall", ids, toToolCall, TOOL_CALL_COLUMNS);

export async function loadOpenGrouped(sql: Sql, conversationIds: string[]): Promise<Map<string, GroupedState>> {
  const grouped = GROUPED_TYPES.map((t) => `'${t}'`).join(", ");
  const rows = await selectIn(sql, "Interruption", "conversationId", conversationIds, INTERRUPTION_COLUMNS, `"type" IN (${grouped}) AND "status" <> 'resolved'`);
  const open = new Map<string, GroupedState>();
  for (const r of rows.map(toInterruptionRow)) {
    const repeated = r.type === "retry_storm" ? String((JSON.parse(r.detail) as { repeated_type?: string }).repeated_type ?? "") : "";
    open.set(groupKey(r.conversationId ?? "", r.type, repeated), { row: r, isNew: false, dirty: false });
  }
  return open;
}

/** The state of everything `prepared` touches; `toolCallRowIds` are the tool calls its new messages name. */
export async function loadBatchState(sql: Sql, prepared: Prepared[], toolCallRowIds: string[]): Promise<BatchState> {
  const conversationIds = prepared.map((p) => p.keys.conversationId);
  // issued together: on PostgreSQL the five reads are one round trip
  const [sessions, conversations, turns, grouped, toolCalls] = await Promise.all([
    loadSessions(sql, prepared.map((p) => p.keys.sessionId)),
    loadConversations(sql, conversationIds),
    loadTurns(sql, prepared.map((p) => p.keys.turnId)),
    loadOpenGrouped(sql, conversationIds),
    loadToolCalls(sql, toolCallRowIds),
  ]);
  return { sessions, conversations, turns, grouped, toolCalls, agents: new Map() };
}
