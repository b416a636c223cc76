// Tool-call rows of call ingest: each tool call a history or an output names, who made it, its
// arguments and its result (SPEC §3.1 judges results in prepare.ts; this decides which result is
// the first to be judged, so a tool call yields at most one finding).
import type { Finding } from "../detect/types";
import type { ToolCallState } from "./batchState";
import { toolCallRowId, toolInterruptionId, type CallKeys } from "./keys";
import { toolResultFacts, type Prepared } from "./prepare";
import { storedArguments } from "./redact";
import type { ToolCallPart } from "../domain/calls";

/** A judged tool result that is an interruption, under its per-tool-call id. */
export type ToolFinding = { id: string; finding: Finding };

/** Row ids of the tool calls in each call's history from index `from(p)` on, and in its output. */
export function toolCallRowIdsFrom(prepared: Prepared[], from: (p: Prepared) => number): string[] {
  const ids: string[] = [];
  for (const p of prepared) {
    for (const parts of [...p.inputTools.slice(from(p)), ...p.outputTools]) {
      for (const part of parts) {
        if (part.type === "tool_call" || part.type === "tool_call_response") ids.push(toolCallRowId(p.keys.sessionId, part.id));
      }
    }
  }
  return ids;
}

/** Row ids of the tool calls in the messages each call adds (its new history suffix and its output). */
export const toolCallRowIdsAdded = (prepared: Prepared[]): string[] => toolCallRowIdsFrom(prepared, (p) => p.newInputStart);

/**
 * Records the tool calls and responses that first appear in call `p` (after `markNewSuffixes`);
 * each response is judged once. Returns the findings of the responses judged here.
 */
export function recordToolCalls(toolCalls: Map<string, ToolCallState>, p: Prepared): ToolFinding[] {
  const { call, keys } = p;
  const findings: ToolFinding[] = [];
  // The name of a tool call answered here, from its stored row or, failing that, the history
  // (indexed once, when first needed: a scan per result would be quadratic in a history of
  // results whose calls it does not hold).
  let historyNames: Map<string, string> | null = null;
  const nameOf = (id: string) => {
    const named = p.answeredNames.get(id); // read in prepareCall for the results the call is first to carry
    if (named !== undefined) return named;
    if (!historyNames) {
      historyNames = new Map();
      for (const parts of p.inputTools) for (const part of parts) if (part.type === "tool_call" && !historyNames.has(part.id)) historyNames.set(part.id, part.name);
    }
    return historyNames.get(id) ?? "";
  };

  // A tool call belongs to the call whose output made it; one first seen in a history (its
  // maker not ingested yet) is recorded without a maker, which claims it when it arrives.
  const fromHistory = p.inputTools.slice(p.newInputStart).map((parts) => ({ parts, made: false }));
  const fromOutput = p.outputTools.map((parts) => ({ parts, made: true }));
  for (const { parts, made } of [...fromHistory, ...fromOutput]) {
    for (const part of parts) {
      if (part.type === "tool_call") toolCall(toolCalls, keys, part, p.toolArguments.get(part.id), made ? call.call_id : null, call.start_ns);
      if (part.type !== "tool_call_response") continue;
      const known = toolCalls.get(toolCallRowId(keys.sessionId, part.id));
      const name = known?.name ?? nameOf(part.id);
      const tc = toolCall(toolCalls, keys, { type: "tool_call", id: part.id, name, arguments: undefined }, undefined, null, call.start_ns);
      if (tc.hasResponse) continue; // already judged (e.g. from a tool_result event)
      // read in prepareCall, unless the conversation's previous call (in that thread) carried it
      // and it is new here all the same (not stored then, or a call prepared again whole)
      const { response, finding } = p.toolResults.get(part.id) ?? toolResultFacts(part.response, part.is_error ?? null);
      tc.response = response;
      tc.hasResponse = true;
      tc.success = part.is_error === true ? false : tc.success ?? true;
      tc.dirty = true;
      if (finding) {
        const detail = { ...finding.detail, tool_call_id: part.id, tool_name: tc.name };
        findings.push({ id: toolInterruptionId(keys.sessionId, part.id), finding: { type: finding.type, detail } });
      }
    }
  }
  return findings;
}

/** The row of a tool call, created on first sight; a maker or arguments seen later fill it in. */
function toolCall(
  toolCalls: Map<string, ToolCallState>,
  keys: CallKeys,
  part: ToolCallPart,
  storedArgs: string | undefined,
  makerCallId: string | null,
  at: bigint,
): ToolCallState {
  const id = toolCallRowId(keys.sessionId, part.id);
  let tc = toolCalls.get(id);
  if (!tc) {
    tc = {
      id, sessionId: keys.sessionId, conversationId: keys.conversationId, callId: makerCallId, toolCallId: part.id,
      name: part.name || null, arguments: null, response: null, success: null, error: null,
      durationNs: null, atNs: at, hasArguments: false, hasResponse: false, isNew: true, dirty: false,
    };
    toolCalls.set(id, tc);
  }
  if (makerCallId && tc.callId !== makerCallId) {
    tc.callId = makerCallId;
    tc.atNs = at;
    tc.dirty = true;
  }
  if (part.name && !tc.name) tc.name = part.name;
  if (part.arguments !== undefined && !tc.hasArguments) {
    tc.arguments = storedArgs ?? storedArguments(part.arguments);
    tc.hasArguments = true;
    tc.dirty = true;
  }
  return tc;
}
