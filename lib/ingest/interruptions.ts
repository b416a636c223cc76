// Building interruption rows from findings: severity from configuration, a fingerprint for
// grouping (type + agent + model + normalized error code, SPEC §3.4).
import crypto from "node:crypto";
import type { DetectionConfig } from "../config/detection";
import type { InterruptionType } from "../domain/interruptions";
import { nowNs } from "../domain/time";
import { redactValue } from "./redact";

export type InterruptionRow = {
  id: string;
  sessionId: string | null;
  conversationId: string | null;
  turnId: string | null;
  callId: string | null;
  traceId: string | null;
  pid: number | null;
  agentName: string | null;
  model: string | null;
  type: string;
  severity: string;
  occurredAtNs: bigint;
  lastSeenNs: bigint;
  occurrences: number;
  detail: string;
  fingerprint: string;
  createdAtNs: bigint;
};

export type InterruptionContext = Partial<
  Pick<InterruptionRow, "sessionId" | "conversationId" | "turnId" | "callId" | "traceId" | "pid" | "agentName" | "model">
>;

/** The part of a finding's evidence that names *which* failure it is, for grouping. */
function errorKey(detail: Record<string, unknown>): string {
  for (const key of ["error_code", "rule", "repeated_type", "reason", "signal"]) {
    const v = detail[key];
    if (typeof v === "string" && v) return v.toLowerCase();
  }
  const status = detail.status_code;
  return typeof status === "number" ? String(status) : "";
}

export function fingerprintOf(type: string, agentName: string | null, model: string | null, detail: Record<string, unknown>): string {
  const key = [type, agentName ?? "", model ?? "", errorKey(detail)].join("\u001f");
  return crypto.createHash("sha256").update(key).digest("hex").slice(0, 16);
}

export function buildInterruption(
  id: string,
  type: InterruptionType,
  detail: Record<string, unknown>,
  at: bigint,
  ctx: InterruptionContext,
  cfg: DetectionConfig,
): InterruptionRow {
  return {
    id,
    sessionId: ctx.sessionId ?? null,
    conversationId: ctx.conversationId ?? null,
    turnId: ctx.turnId ?? null,
    callId: ctx.callId ?? null,
    traceId: ctx.traceId ?? null,
    pid: ctx.pid ?? null,
    agentName: ctx.agentName ?? null,
    model: ctx.model ?? null,
    type,
    severity: cfg.severity[type],
    occurredAtNs: at,
    lastSeenNs: at,
    occurrences: 1,
    // evidence quotes tool output and error text: mask credentials in it too
    detail: JSON.stringify(redactValue(detail)),
    fingerprint: fingerprintOf(type, ctx.agentName ?? null, ctx.model ?? null, detail),
    createdAtNs: nowNs(),
  };
}
