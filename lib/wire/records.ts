// The AgentSight interruption record (SPEC §5.1) plus SightDesk's own fields.
import type { Interruption, InterruptionActivity } from "../db/generated/client";

export function interruptionRecord(i: Interruption & { regressed?: boolean }) {
  return {
    interruption_id: i.id,
    session_id: i.sessionId,
    trace_id: i.traceId,
    conversation_id: i.conversationId,
    call_id: i.callId,
    pid: i.pid,
    agent_name: i.agentName,
    interruption_type: i.type,
    severity: i.severity,
    occurred_at_ns: i.occurredAtNs,
    // AgentSight sends detail as a JSON-encoded string
    detail: i.detail,
    resolved: i.status === "resolved",
    status: i.status,
    assignee: i.assignee,
    acknowledged_by: i.acknowledgedBy,
    resolved_by: i.resolvedBy,
    resolved_at_ns: i.resolvedAtNs,
    occurrences: i.occurrences,
    last_seen_ns: i.lastSeenNs,
    fingerprint: i.fingerprint,
    regressed: i.regressed ?? false,
    snooze_id: i.snoozeId,
  };
}

export type InterruptionRecord = ReturnType<typeof interruptionRecord>;

const parseOrNull = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export function activityRecord(a: InterruptionActivity) {
  return { actor: a.actor, action: a.action, before: parseOrNull(a.before), after: parseOrNull(a.after), note: a.note, at_ns: a.atNs };
}
