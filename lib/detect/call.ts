// Per-call classification (SPEC §3.1): at most one failure type per call, in a fixed order,
// then token_limit / slow_response for calls that did not fail. Keyword rules read only the
// error text and non-2xx bodies, never the model's normal output.
import type { DetectionConfig } from "../config/detection";
import type { Imbalance } from "./toolBalance";
import { isSuccessStatus } from "../domain/calls";
import type { InterruptionType } from "../domain/interruptions";
import type { Finding } from "./types";

export type CallFacts = {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  isSse: boolean;
  sseDone: boolean | null;
  finishReasons: string[];
  durationMs: number | null;
  cancelled: boolean;
  /** the call's turn ended steered / drained / dispatched / awaiting */
  turnSuspended: boolean;
  outputPartCount: number;
  /** the capture layer left part of the bodies out: an answer not seen whole is not known to be empty */
  recordingTruncated?: boolean;
  model: string | null;
  maxTokens: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  responseInvalid: boolean;
  /** the input history's tool-call balance, when it is not balanced */
  unbalanced: Imbalance | null;
  /** the conversation was bricked by this earlier call */
  brickedSinceCallId: string | null;
};

export type CallClassification = { failure: Finding | null; extras: Finding[] };

const KEYWORDS: Partial<Record<InterruptionType, string[]>> = {
  context_overflow: [
    "context_length_exceeded", "maximum context length", "context window", "context_length",
    "reduce the length", "prompt is too long", "input is too long", "tokens_limit_reached",
    "context limit", "exceeds the model",
    // DashScope (Qwen) reports an over-long prompt as a parameter range error
    "range of input length",
  ],
  auth_error: ["invalid_api_key", "unauthorized", "authentication_error"],
  resource_exhaustion: ["insufficient_quota", "exceeded your current quota", "billing", "credit balance"],
  rate_limit: ["rate_limit", "rate limit", "too many requests"],
  network_timeout: ["timeout", "timed out", "etimedout", "gateway time-out"],
  service_unavailable: ["overloaded", "service_unavailable", "service unavailable", "bad gateway"],
  safety_filter: ["content_filter", "content_policy_violation"],
  state_machine_error: [
    "must be followed by tool messages", "tool_use ids were found without tool_result",
    // Anthropic's actual wording wraps the block names in backticks
    "`tool_use` ids were found without `tool_result`",
  ],
};

const STATUS: Partial<Record<InterruptionType, number[]>> = {
  context_overflow: [413],
  auth_error: [401, 403],
  resource_exhaustion: [402],
  rate_limit: [429],
  network_timeout: [408, 504],
  service_unavailable: [502, 503, 529],
};

const LENGTH_FINISH = new Set(["length", "max_tokens", "MAX_TOKENS"]);
const SAFETY_FINISH = new Set(["content_filter", "refusal", "SAFETY"]);

/**
 * A successful answer, not cancelled by the client: a 2xx, or no status and no error — an
 * answer whose status went unrecorded (an OTLP span without captured content carries none, so
 * that an unknown output does not read as an empty response; it can still be slow or overflow
 * its context).
 */
const succeeded = (f: CallFacts) => !f.cancelled && (isSuccessStatus(f.statusCode) || (f.statusCode === null && !f.error));

/** The text keyword rules may read: error text, and the body only of a non-2xx response. */
function failureText(f: CallFacts): string {
  const body = f.statusCode !== null && !isSuccessStatus(f.statusCode) ? f.responseBody ?? "" : "";
  return `${f.error ?? ""}\n${body}`.toLowerCase();
}

function matches(type: InterruptionType, f: CallFacts, text: string): boolean {
  if (f.statusCode !== null && STATUS[type]?.includes(f.statusCode)) return true;
  return (KEYWORDS[type] ?? []).some((k) => text.includes(k));
}

/** Whether a streamed response saw its terminal event. */
export function streamCompleted(f: Pick<CallFacts, "sseDone" | "finishReasons">): boolean {
  if (f.sseDone !== null) return f.sseDone;
  return f.finishReasons.some((r) => r !== "");
}

/** A provider error code from a JSON error body (`error.code`, `error.type`), if any. */
export function errorCode(body: string | null): string | null {
  if (!body) return null;
  try {
    const parsed: unknown = JSON.parse(body);
    if (!parsed || typeof parsed !== "object") return null;
    const err = (parsed as { error?: unknown }).error;
    if (err && typeof err === "object") {
      const { code, type } = err as { code?: unknown; type?: unknown };
      if (typeof code === "string" && code) return code;
      if (typeof type === "string" && type) return type;
    }
    if (typeof err === "string") return err.slice(0, 64);
  } catch {
    /* not JSON: no code */
  }
  return null;
}

function errorDetail(f: CallFacts, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const message = (f.error || f.responseBody || "").slice(0, 500);
  return {
    status_code: f.statusCode,
    error_code: errorCode(f.responseBody),
    message,
    ...extra,
    ...(f.brickedSinceCallId && f.statusCode === 400 ? { bricked_since_call_id: f.brickedSinceCallId } : {}),
  };
}

function stateMachineFinding(f: CallFacts, text: string): Finding | null {
  if (f.unbalanced) {
    return {
      type: "state_machine_error",
      detail: errorDetail(f, { rule: "unbalanced_tool_calls", ...f.unbalanced }),
    };
  }
  if (f.responseInvalid && isSuccessStatus(f.statusCode)) {
    return { type: "state_machine_error", detail: errorDetail(f, { rule: "invalid_response_body" }) };
  }
  if (f.statusCode === 400 && matches("state_machine_error", f, text)) {
    return { type: "state_machine_error", detail: errorDetail(f, { rule: "provider_rejected_history" }) };
  }
  return null;
}

function findFailure(f: CallFacts, cfg: DetectionConfig): Finding | null {
  const text = failureText(f);
  const lengthFinish = f.finishReasons.some((r) => LENGTH_FINISH.has(r));
  const simple = (type: InterruptionType): Finding | null =>
    matches(type, f, text) ? { type, detail: errorDetail(f) } : null;

  if (
    succeeded(f) && lengthFinish && f.inputTokens !== null && f.maxTokens !== null &&
    f.inputTokens > cfg.contextOverflowInputFactor * f.maxTokens
  ) {
    return {
      type: "context_overflow",
      detail: { rule: "length_with_large_input", input_tokens: f.inputTokens, max_tokens: f.maxTokens, model: f.model },
    };
  }
  for (const type of ["context_overflow", "auth_error", "resource_exhaustion", "rate_limit", "network_timeout", "service_unavailable"] as const) {
    const found = simple(type);
    if (found) return found;
  }
  if (f.finishReasons.some((r) => SAFETY_FINISH.has(r))) {
    return { type: "safety_filter", detail: { finish_reasons: f.finishReasons, model: f.model } };
  }
  if (f.statusCode === 400 && matches("safety_filter", f, text)) return { type: "safety_filter", detail: errorDetail(f) };

  const stateMachine = stateMachineFinding(f, text);
  if (stateMachine) return stateMachine;

  if (f.cancelled) return null; // the client aborted: whatever follows is its own doing
  if ((f.statusCode !== null && f.statusCode >= 400) || f.error) return { type: "llm_error", detail: errorDetail(f) };

  const answered = f.statusCode === null || isSuccessStatus(f.statusCode);
  if (answered && f.isSse && !streamCompleted(f) && f.durationMs !== null && f.durationMs >= cfg.sseTruncatedMinMs) {
    return { type: "sse_truncated", detail: { duration_ms: f.durationMs, finish_reasons: f.finishReasons, model: f.model } };
  }
  if (isSuccessStatus(f.statusCode) && f.outputPartCount === 0 && !f.turnSuspended && !f.recordingTruncated) {
    return { type: "empty_response", detail: { status_code: f.statusCode, finish_reasons: f.finishReasons, model: f.model } };
  }
  return null;
}

function findExtras(f: CallFacts, cfg: DetectionConfig): Finding[] {
  const extras: Finding[] = [];
  const lengthFinish = f.finishReasons.some((r) => LENGTH_FINISH.has(r));
  if (lengthFinish && f.maxTokens && f.outputTokens !== null && f.outputTokens >= cfg.tokenLimitRatio * f.maxTokens) {
    extras.push({
      type: "token_limit",
      detail: {
        model: f.model,
        output_tokens: f.outputTokens,
        max_tokens: f.maxTokens,
        ratio: Math.round((f.outputTokens / f.maxTokens) * 1000) / 1000,
      },
    });
  }
  if (succeeded(f) && f.durationMs !== null && f.durationMs >= cfg.slowResponseMs) {
    extras.push({ type: "slow_response", detail: { duration_ms: f.durationMs, threshold_ms: cfg.slowResponseMs, model: f.model } });
  }
  return extras;
}

export function classifyCall(f: CallFacts, cfg: DetectionConfig): CallClassification {
  const failure = findFailure(f, cfg);
  return { failure, extras: failure ? [] : findExtras(f, cfg) };
}
