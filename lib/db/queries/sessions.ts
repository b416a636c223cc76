// Sessions and their trajectories: conversations → turns → calls, and a call's messages.
import { notFound } from "../../domain/errors";
import { keptImbalance, toolBalance, type StoredImbalance } from "../../detect/toolBalance";
import { ACTIVE_STATUSES, emptySeverityCounts, SEVERITIES } from "../../domain/interruptions";
import type { ChatMessage } from "../../domain/calls";
import type { Db, DbTx } from "../client";
import type { Call, Prisma, Session } from "../generated/client";
import { inChunks } from "../multiRow";
import { marks, readSql } from "../sql";
import { decodeTimeCursor, encodeTimeCursor } from "./timeCursor";
import { groupBy } from "../../groupBy";

// Unknown severities (imported from AgentSight as given) sort first here, as they always have.
const SEVERITY_INDEX = (s: string) => (SEVERITIES as readonly string[]).indexOf(s);

type OpenCounts = { total: number; by_severity: Record<string, number>; types: { interruption_type: string; severity: string; count: number }[] };

/** Sessions per grouped read: Prisma refuses a grouped read of more than 999 values on SQLite (P2029). */
const SESSIONS_PER_READ = 500;

async function openCountsBySession(db: DbTx, sessionIds: string[]): Promise<Map<string, OpenCounts>> {
  const groups = await inChunks(sessionIds, SESSIONS_PER_READ, (chunk) =>
    db.interruption.groupBy({
      by: ["sessionId", "type", "severity"],
      where: { sessionId: { in: chunk }, status: { in: [...ACTIVE_STATUSES] } },
      _count: { _all: true },
    }),
  );
  const out = new Map<string, OpenCounts>();
  for (const g of groups) {
    const key = g.sessionId!;
    let c = out.get(key);
    if (!c) out.set(key, (c = { total: 0, by_severity: emptySeverityCounts(), types: [] }));
    c.total += g._count._all;
    c.by_severity[g.severity] = (c.by_severity[g.severity] ?? 0) + g._count._all;
    c.types.push({ interruption_type: g.type, severity: g.severity, count: g._count._all });
  }
  for (const c of out.values()) c.types.sort((a, b) => SEVERITY_INDEX(a.severity) - SEVERITY_INDEX(b.severity) || b.count - a.count);
  return out;
}

function sessionRecord(s: Session, conversations: number, open: OpenCounts | undefined) {
  return {
    session_id: s.id,
    agent_name: s.agentName,
    pid: s.pid,
    host: s.host,
    process_name: s.processName,
    first_seen_ns: s.firstSeenNs,
    last_seen_ns: s.lastSeenNs,
    call_count: s.callCount,
    conversation_count: conversations,
    // 64-bit columns; JSON numbers stay exact up to 2^53, far beyond any session's tokens
    input_tokens: Number(s.inputTokens),
    output_tokens: Number(s.outputTokens),
    model: s.lastModel,
    exited_at_ns: s.exitedAtNs,
    exit_code: s.exitCode,
    exit_signal: s.exitSignal,
    oom: s.oom,
    open_interruptions: open ?? { total: 0, by_severity: emptySeverityCounts(), types: [] },
  };
}

export type SessionListQuery = { ids?: string[]; agentNames?: string[]; withOpen?: boolean; startNs?: bigint; endNs?: bigint; limit: number; cursor?: string };

/** The cursor of the page after `s`, newest first (timeCursor.ts). */
export const encodeSessionCursor = (s: { last_seen_ns: bigint; session_id: string }) => encodeTimeCursor(s.last_seen_ns, s.session_id);

/** The ids of a page of sessions, in order (one statement: its lists and the open filter are SQL, not bound id lists). */
async function sessionPage(db: Db, q: SessionListQuery): Promise<string[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const inList = (column: string, values: string[]) => {
    where.push(`${column} IN (${marks(values.length)})`);
    params.push(...values);
  };
  if (q.ids) {
    if (!q.ids.length) return [];
    inList(`"id"`, q.ids);
  }
  if (q.agentNames?.length) inList(`"agentName"`, q.agentNames);
  if (q.startNs !== undefined) (where.push(`"lastSeenNs" >= ?`), params.push(q.startNs));
  if (q.endNs !== undefined) (where.push(`"lastSeenNs" <= ?`), params.push(q.endNs));
  if (q.withOpen) {
    where.push(`EXISTS (SELECT 1 FROM "Interruption" AS "i" WHERE "i"."sessionId" = "Session"."id" AND "i"."status" IN (${marks(ACTIVE_STATUSES.length)}))`);
    params.push(...ACTIVE_STATUSES);
  }
  if (q.cursor) {
    const c = decodeTimeCursor(q.cursor);
    // the bound alone first: an index range (neither planner takes one from the OR, and each
    // page read every row before the cursor again)
    where.push(`"lastSeenNs" <= ? AND ("lastSeenNs" < ? OR ("lastSeenNs" = ? AND "id" < ?))`);
    params.push(c.ns, c.ns, c.ns, c.id);
  }
  const rows = await readSql(db).all(
    `SELECT "id" FROM "Session"${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY "lastSeenNs" DESC, "id" DESC LIMIT ?`,
    [...params, q.limit],
  );
  return rows.map((r) => String(r.id));
}

export async function listSessions(db: Db, q: SessionListQuery) {
  const ids = await sessionPage(db, q);
  const found = new Map((ids.length ? await db.session.findMany({ where: { id: { in: ids } } }) : []).map((s) => [s.id, s]));
  const sessions = ids.flatMap((id) => found.get(id) ?? []);
  const [open, conversations] = await Promise.all([
    openCountsBySession(db, ids),
    inChunks(ids, SESSIONS_PER_READ, (chunk) => db.conversation.groupBy({ by: ["sessionId"], where: { sessionId: { in: chunk } }, _count: { _all: true } })),
  ]);
  const convCount = new Map(conversations.map((c) => [c.sessionId, c._count._all]));
  return sessions.map((s) => sessionRecord(s, convCount.get(s.id) ?? 0, open.get(s.id)));
}

/** A session with its conversations and their turns (calls are paged separately). */
export async function sessionDetail(db: DbTx, id: string) {
  const session = await db.session.findUnique({ where: { id } });
  if (!session) throw notFound("Session not found");
  const [conversations, turns, open] = await Promise.all([
    db.conversation.findMany({ where: { sessionId: id }, orderBy: { firstSeenNs: "asc" } }),
    db.turn.findMany({ where: { sessionId: id }, orderBy: { firstSeenNs: "asc" } }),
    openCountsBySession(db, [id]),
  ]);
  const turnsOf = groupBy(turns, (t) => t.conversationId);
  return {
    ...sessionRecord(session, conversations.length, open.get(id)),
    conversations: conversations.map((c) => ({
      conversation_id: c.id,
      first_seen_ns: c.firstSeenNs,
      last_seen_ns: c.lastSeenNs,
      call_count: c.callCount,
      bricked_since_call_id: c.brickedSinceCallId,
      turns: (turnsOf.get(c.id) ?? []).map((t) => ({ turn_id: t.label ?? t.id, first_seen_ns: t.firstSeenNs, last_seen_ns: t.lastSeenNs, call_count: t.callCount, end_reason: t.endReason, ended_at_ns: t.endedAtNs })),
    })),
  };
}

function callSummary(c: Call, markers: { interruption_id: string; interruption_type: string; severity: string }[], labels: Map<string, string>) {
  return {
    call_id: c.id,
    trace_id: c.traceId,
    session_id: c.sessionId,
    conversation_id: c.conversationId,
    turn_id: c.turnId === null ? null : (labels.get(c.turnId) ?? c.turnId),
    agent_name: c.agentName,
    provider: c.provider,
    model: c.model,
    start_ns: c.startNs,
    end_ns: c.endNs,
    duration_ns: c.durationNs,
    status_code: c.statusCode,
    error: c.error,
    is_sse: c.isSse,
    sse_done: c.sseDone,
    cancelled: c.cancelled,
    recording_truncated: c.recordingTruncated,
    max_tokens: c.maxTokens,
    input_tokens: c.inputTokens,
    output_tokens: c.outputTokens,
    finish_reasons: c.finishReasons ? (JSON.parse(c.finishReasons) as string[]) : [],
    input_message_count: c.inputCount,
    output_message_count: c.outputCount,
    unbalanced_tool_calls: c.balance ? keptImbalance(JSON.parse(c.balance) as StoredImbalance) : null,
    interruptions: markers,
  };
}

/** The turn_ids senders gave, by Turn row id (a row's id scopes the sender's to its session: keys.ts). */
async function turnLabels(db: DbTx, turnIds: (string | null)[]): Promise<Map<string, string>> {
  const ids = [...new Set(turnIds.filter((t): t is string => t !== null))];
  const rows = ids.length ? await db.turn.findMany({ where: { id: { in: ids }, label: { not: null } }, select: { id: true, label: true } }) : [];
  return new Map(rows.map((t) => [t.id, t.label!]));
}

async function markersFor(db: DbTx, callIds: string[]) {
  const rows = callIds.length
    ? await db.interruption.findMany({
        where: { callId: { in: callIds } },
        select: { id: true, callId: true, type: true, severity: true, status: true },
      })
    : [];
  const byCall = new Map<string, { interruption_id: string; interruption_type: string; severity: string; status: string }[]>();
  for (const r of rows) {
    const list = byCall.get(r.callId!) ?? [];
    list.push({ interruption_id: r.id, interruption_type: r.type, severity: r.severity, status: r.status });
    byCall.set(r.callId!, list);
  }
  return byCall;
}

export type CallPage = { sessionId: string; conversationId?: string; limit: number; afterNs?: bigint; afterId?: string };

/** A session's calls in time order, a page at a time (a long session has thousands). */
export async function sessionCalls(db: DbTx, q: CallPage) {
  const where: Prisma.CallWhereInput = { sessionId: q.sessionId };
  if (q.conversationId) where.conversationId = q.conversationId;
  // the bound alone too: an index range (from the OR alone each page read every call before it again)
  if (q.afterNs !== undefined) Object.assign(where, { startNs: { gte: q.afterNs }, OR: [{ startNs: { gt: q.afterNs } }, { startNs: q.afterNs, id: { gt: q.afterId ?? "" } }] });
  const calls = await db.call.findMany({ where, orderBy: [{ startNs: "asc" }, { id: "asc" }], take: q.limit });
  const [markers, labels] = await Promise.all([markersFor(db, calls.map((c) => c.id)), turnLabels(db, calls.map((c) => c.turnId))]);
  return calls.map((c) => callSummary(c, markers.get(c.id) ?? [], labels));
}

type NodeRow = { id: string; parentId: string | null; seq: number; role: string; parts: string };

/** The messages of a history, walking parent links from its tail node. */
async function history(db: Db, tailId: string | null): Promise<ChatMessage[]> {
  if (!tailId) return [];
  const rows = await readSql(db).all(
    `WITH RECURSIVE chain("id", "parentId", "seq", "role", "parts") AS (
       SELECT "id", "parentId", "seq", "role", "parts" FROM "Message" WHERE "id" = ?
       UNION ALL
       SELECT m."id", m."parentId", m."seq", m."role", m."parts" FROM "Message" m JOIN chain c ON m."id" = c."parentId"
     ) SELECT * FROM chain ORDER BY "seq"`,
    [tailId],
  );
  return (rows as unknown as NodeRow[]).map((r) => ({ role: String(r.role), parts: JSON.parse(String(r.parts)) }));
}

/** One call with its full input history, output, tool-call balance and interruptions. */
export async function callDetail(db: Db, id: string) {
  const call = await db.call.findUnique({ where: { id } });
  if (!call) throw notFound("Call not found");
  const [chain, markers, labels, system, toolCalls] = await Promise.all([
    history(db, call.outputTailId ?? call.inputTailId),
    markersFor(db, [id]),
    turnLabels(db, [call.turnId]),
    call.systemBlobId ? db.blob.findUnique({ where: { id: call.systemBlobId } }) : null,
    db.toolCall.findMany({ where: { callId: id } }),
  ]);
  const input = chain.slice(0, call.inputCount);
  const output = chain.slice(call.inputCount);
  const balance = toolBalance(input);
  return {
    ...callSummary(call, markers.get(id) ?? [], labels),
    system_instructions: system ? JSON.parse(system.content) : [],
    input_messages: input,
    output_messages: output,
    tool_balance: balance,
    tool_calls: toolCalls.map((t) => ({
      tool_call_id: t.toolCallId,
      name: t.name,
      arguments: t.arguments,
      response: t.response,
      success: t.success,
      error: t.error,
      duration_ns: t.durationNs,
    })),
  };
}

export async function listAgents(db: DbTx) {
  const agents = await db.agent.findMany({ orderBy: { name: "asc" } });
  return agents.map((a) => ({ agent_name: a.name, first_seen_ns: a.firstSeenNs, last_seen_ns: a.lastSeenNs }));
}
