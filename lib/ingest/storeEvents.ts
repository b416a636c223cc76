// Lifecycle events (SPEC §2.3): process exits (agent_crash), turn ends (which withdraw an
// empty_response of a suspended turn) and tool results. One transaction per batch; replaying an
// event changes nothing.
import { detectionConfig, type DetectionConfig } from "../config/detection";
import type { Db, DbTx } from "../db/client";
import { insertRows } from "../db/multiRow";
import { lockKeys, transaction, type Sql } from "../db/sql";
import { judgeToolResult, type ToolResultFinding } from "../detect/toolResult";
import { nowNs } from "../domain/time";
import { buildInterruption, stampAtCommit, type InterruptionRow } from "./interruptions";
import { deriveSessionId, interruptionId, sessionIdOf, toolCallRowId, toolInterruptionId, turnRowId } from "./keys";
import { redactText, storedArguments, storedResult } from "./redact";
import type { LifecycleEvent, ProcessExitEvent, ToolResultEvent, TurnEndEvent } from "./schema";
import { NON_FAILURE_TURN_ENDS } from "./detection";
import type { IngestSource } from "../domain/sources";
import { recordArrivals } from "./sources";
import { admitOne } from "../triage/arrivals";

export type EventResult = { received: number; interruptions: number; withdrawn: number };

/** Signals that a supervisor sends to ask for a shutdown. */
const REQUESTED_SIGNALS = new Set(["SIGTERM", "SIGINT", "15", "2", "TERM", "INT"]);

export const SYSTEM_ACTOR = "system";

async function findSession(tx: DbTx, e: ProcessExitEvent) {
  if (e.session_id) return tx.session.findUnique({ where: { id: e.session_id } });
  const derived = await tx.session.findUnique({ where: { id: deriveSessionId(e.agent_name, e.pid, e.host) } });
  if (derived) return derived;
  return tx.session.findFirst({
    where: { agentName: e.agent_name, pid: e.pid, ...(e.host ? { host: e.host } : {}) },
    orderBy: { lastSeenNs: "desc" },
  });
}

/** Why an exit is a crash, or null when it is a clean or requested shutdown. */
export function crashReason(e: Pick<ProcessExitEvent, "oom" | "signal" | "exit_code">, hasUnsettledTurn: boolean): string | null {
  if (e.oom) return "oom";
  if (e.signal != null && e.signal !== "") {
    const signal = String(e.signal).toUpperCase();
    if (!REQUESTED_SIGNALS.has(signal)) return "signal";
    return hasUnsettledTurn ? "killed_mid_turn" : null;
  }
  if (e.exit_code != null && e.exit_code !== 0) return "exit_code";
  return null;
}

/** Whether a session has ended a turn: only such a session reports turn ends (the unsettled-turn sweep judges only those too). */
const reportsTurnEnds = async (tx: DbTx, sessionId: string): Promise<boolean> =>
  (await tx.turn.findFirst({ where: { sessionId, endReason: { not: null } }, select: { id: true } })) !== null;

async function processExit(sql: Sql, tx: DbTx, e: ProcessExitEvent, cfg: DetectionConfig): Promise<InterruptionRow | null> {
  const exit = { exitedAtNs: e.at_ns, exitCode: e.exit_code ?? null, exitSignal: e.signal == null ? null : String(e.signal), oom: e.oom ?? null };
  let session = await findSession(tx, e);
  if (session) await tx.session.update({ where: { id: session.id }, data: exit });
  else if (e.session_id) {
    // the exit names a session none of whose calls are stored yet (they may be in flight): the
    // session starts with the exit, and its calls join it (call ingest never rewrites exit fields)
    session = await tx.session.create({
      data: { id: e.session_id, agentName: e.agent_name, pid: e.pid, host: e.host ?? null, firstSeenNs: e.at_ns, lastSeenNs: e.at_ns, ...exit },
    });
  }
  // a turn is unsettled only in a session that reports turn ends: where none ever comes (the
  // proxy, OTLP, calls alone) every turn looks unfinished
  const unsettled = session && (await reportsTurnEnds(tx, session.id)) ? await tx.turn.count({ where: { sessionId: session.id, endReason: null, callCount: { gt: 0 } } }) : 0;
  const reason = crashReason(e, unsettled > 0);
  if (!reason || !cfg.enabled) return null;
  const id = interruptionId("agent_crash", session?.id ?? deriveSessionId(e.agent_name, e.pid, e.host), String(e.at_ns));
  if (await tx.interruption.findUnique({ where: { id }, select: { id: true } })) return null;
  const detail = { pid: e.pid, exit_code: e.exit_code ?? null, signal: e.signal ?? null, oom: e.oom ?? false, reason, host: e.host ?? null };
  const row = buildInterruption(id, "agent_crash", detail, e.at_ns, {
    sessionId: session?.id ?? null,
    pid: e.pid,
    agentName: e.agent_name,
    model: session?.lastModel ?? null,
  }, cfg);
  await tx.interruption.create({ data: await admitOne(sql, row, nowNs()) });
  return row;
}

/** Ends a turn; for a suspended or handed-off turn, withdraws its open empty_response findings. */
async function turnEnd(tx: DbTx, e: TurnEndEvent): Promise<number> {
  // the session's first turn end: its turns the unsettled-turn check passed over (it judges only
  // sessions that report turn ends) are judged again (lib/sweeps/sweep.ts)
  if (!(await reportsTurnEnds(tx, e.session_id))) {
    await tx.turn.updateMany({ where: { sessionId: e.session_id, endReason: null, staleCheckedNs: { not: null } }, data: { staleCheckedNs: null } });
  }
  const id = turnRowId(e.session_id, e.turn_id); // the session's turn of that id (keys.ts)
  await tx.turn.upsert({
    where: { id },
    create: {
      id, label: e.turn_id, sessionId: e.session_id, conversationId: e.conversation_id ?? null,
      firstSeenNs: e.at_ns, lastSeenNs: e.at_ns, endReason: e.reason, endedAtNs: e.at_ns, finalEventId: e.final_event_id ?? null,
    },
    update: { endReason: e.reason, endedAtNs: e.at_ns, finalEventId: e.final_event_id ?? null },
  });
  // a turn under way when the Turn ids were scoped (migration turn_label) kept the id as sent
  const legacy = { id: e.turn_id, sessionId: e.session_id, label: null };
  await tx.turn.updateMany({ where: legacy, data: { endReason: e.reason, endedAtNs: e.at_ns, finalEventId: e.final_event_id ?? null } });
  if (!NON_FAILURE_TURN_ENDS.has(e.reason)) return 0;
  const withdrawn = await tx.interruption.findMany({
    where: { OR: [{ turnId: id }, { turnId: e.turn_id, sessionId: e.session_id }], type: "empty_response", status: { not: "resolved" } },
    select: { id: true, status: true },
  });
  const at = nowNs();
  const note = `withdrawn: the turn ended ${e.reason}, so an empty answer is expected`;
  for (const w of withdrawn) {
    await tx.interruption.update({
      where: { id: w.id },
      data: { status: "resolved", resolvedBy: SYSTEM_ACTOR, resolvedAtNs: at, resolutionNote: note },
    });
    await tx.interruptionActivity.create({
      data: {
        interruptionId: w.id, actor: SYSTEM_ACTOR, action: "resolve", note, atNs: at,
        before: JSON.stringify({ status: w.status }), after: JSON.stringify({ status: "resolved" }),
      },
    });
  }
  return withdrawn.length;
}

/** A tool_result event read once (secrets masked, judged), without its raw texts. */
export type PreparedToolResult = Omit<ToolResultEvent, "response" | "arguments" | "error"> & {
  stored: { response: string | null; arguments: string | null; error: string | null };
  finding: ToolResultFinding | null;
};
export type PreparedEvent = ProcessExitEvent | TurnEndEvent | PreparedToolResult;

/** The pure half of event ingest: what reads the event's untrusted text (see prepareCall). */
export function prepareEvent(e: LifecycleEvent): PreparedEvent {
  if (e.kind !== "tool_result") return e;
  const { response, arguments: args, error, ...rest } = e;
  return {
    ...rest,
    stored: {
      response: response === undefined ? null : storedResult(response),
      arguments: args === undefined ? null : storedArguments(args),
      error: error ? redactText(error) : null,
    },
    finding: judgeToolResult({ response: response ?? null, success: e.success, error: error ?? null }),
  };
}

async function toolResult(sql: Sql, tx: DbTx, e: PreparedToolResult, cfg: DetectionConfig): Promise<InterruptionRow | null> {
  const id = toolCallRowId(e.session_id, e.tool_call_id);
  // an event that names no call (an OTLP execute_tool span) belongs to the call that made the
  // tool call, when that call is stored: its finding is marked there, in its conversation and turn
  const made = e.call_id ? null : await tx.toolCall.findUnique({ where: { id }, select: { callId: true } });
  const callId = e.call_id ?? made?.callId ?? null;
  const call = callId ? await tx.call.findUnique({ where: { id: callId }, select: { conversationId: true, turnId: true } }) : null;
  const conversationId = e.conversation_id ?? call?.conversationId ?? null;
  const fields = {
    name: e.name,
    ...e.stored,
    success: e.success,
    durationNs: e.duration_ns ?? null,
    atNs: e.at_ns,
  };
  // plain SQL: a tool output can be megabytes, which the ORM would copy through its engine
  const row = { id, sessionId: e.session_id, conversationId, callId: e.call_id ?? null, toolCallId: e.tool_call_id, ...fields };
  // What the event does not say (e.g. arguments a tool span left out) keeps what the call said:
  // a replayed event must not erase the arguments its call recorded meanwhile.
  const said = Object.entries(fields).filter(([, v]) => v !== null).map(([k]) => k);
  await insertRows(sql, "ToolCall", [row], { key: ["id"], update: said });
  const finding = e.finding;
  if (!finding || !cfg.enabled) return null;
  const iid = toolInterruptionId(e.session_id, e.tool_call_id);
  if (await tx.interruption.findUnique({ where: { id: iid }, select: { id: true } })) return null;
  const session = await tx.session.findUnique({ where: { id: e.session_id }, select: { agentName: true, pid: true, lastModel: true } });
  const detail = { ...finding.detail, tool_call_id: e.tool_call_id, tool_name: e.name };
  const interruption = buildInterruption(iid, finding.type, detail, e.at_ns, {
    sessionId: e.session_id,
    conversationId,
    turnId: call?.turnId ?? null,
    callId,
    pid: session?.pid ?? null,
    agentName: session?.agentName ?? null,
    model: session?.lastModel ?? null,
  }, cfg);
  await tx.interruption.create({ data: await admitOne(sql, interruption, nowNs()) });
  return interruption;
}

export function ingestEvents(db: Db, events: LifecycleEvent[], cfg: DetectionConfig = detectionConfig(), source: IngestSource = "api"): Promise<EventResult> {
  return ingestPreparedEvents(db, events.map(prepareEvent), cfg, source);
}

/** `ingestEvents` of events read by `prepareEvent` (perhaps on another thread), arrived through `source`. */
export async function ingestPreparedEvents(db: Db, events: PreparedEvent[], cfg: DetectionConfig = detectionConfig(), source: IngestSource = "api"): Promise<EventResult> {
  return transaction(
    db,
    async (sql, tx) => {
      await lockKeys(sql, events.map(sessionOf)); // call ingest rewrites the same session rows
      const result: EventResult = { received: events.length, interruptions: 0, withdrawn: 0 };
      const created: InterruptionRow[] = [];
      for (const e of events) {
        if (e.kind === "turn_end") result.withdrawn += await turnEnd(tx, e);
        else {
          const row = e.kind === "process_exit" ? await processExit(sql, tx, e, cfg) : await toolResult(sql, tx, e, cfg);
          if (row) created.push(row);
        }
      }
      result.interruptions = created.length;
      // events are not calls: they refresh the source's arrival time, not its call count (last: see ingestPrepared)
      await recordArrivals(sql, source, events.map((e) => ({ agentName: e.kind === "process_exit" ? e.agent_name : null, stored: false })));
      await stampAtCommit(sql, created); // last: the alert scan must see them as new when they commit
      return result;
    },
    60_000,
  );
}

const sessionOf = (e: PreparedEvent): string => (e.kind === "process_exit" ? sessionIdOf(e) : e.session_id);
