import { describe, expect, it } from "vitest";
import { DEFAULT_DETECTION } from "@/lib/config/detection";
import { classifyCall, errorCode, streamCompleted, type CallFacts } from "@/lib/detect/call";
import { imbalanceOf, type Imbalance, type ToolBalance } from "@/lib/detect/toolBalance";
import { crashReason } from "@/lib/ingest/storeEvents";

/** A successful, non-streamed 200 call that produced output text. */
const facts = (overrides: Partial<CallFacts> = {}): CallFacts => ({
  statusCode: 200,
  error: null,
  responseBody: '{"choices":[{"message":{"content":"hello"},"finish_reason":"stop"}]}',
  isSse: false,
  sseDone: null,
  finishReasons: ["stop"],
  durationMs: 1500,
  cancelled: false,
  turnSuspended: false,
  outputPartCount: 1,
  model: "gpt-4o",
  maxTokens: 4096,
  inputTokens: 1000,
  outputTokens: 200,
  responseInvalid: false,
  unbalanced: null,
  brickedSinceCallId: null,
  ...overrides,
});

const classify = (overrides: Partial<CallFacts> = {}) => classifyCall(facts(overrides), DEFAULT_DETECTION);
/** The failure type, or null. */
const failureOf = (overrides: Partial<CallFacts> = {}) => classify(overrides).failure?.type ?? null;
/** The extra (non-failure) types. */
const extrasOf = (overrides: Partial<CallFacts> = {}) => classify(overrides).extras.map((e) => e.type);

/** An unbalanced history's imbalance with these ids (as imbalanceOf keeps it). */
const balance = (b: Partial<Pick<ToolBalance, "dangling" | "orphan" | "duplicate">>): Imbalance =>
  imbalanceOf({ dangling: [], orphan: [], duplicate: [], series: [], safeCuts: [], ...b, balanced: false })!;

describe("classifyCall: a plain successful call", () => {
  it("has no failure and no extras", () => {
    expect(classify()).toEqual({ failure: null, extras: [] });
  });
});

describe("token_limit", () => {
  it("fires at exactly 0.95 × max_tokens with finish `length`", () => {
    const r = classify({ finishReasons: ["length"], maxTokens: 1000, outputTokens: 950 });
    expect(r.failure).toBeNull();
    expect(r.extras).toEqual([
      { type: "token_limit", detail: { model: "gpt-4o", output_tokens: 950, max_tokens: 1000, ratio: 0.95 } },
    ]);
  });

  it("does not fire just below the ratio (3890/4096)", () => {
    expect(classify({ finishReasons: ["length"], maxTokens: 4096, outputTokens: 3890 })).toEqual({ failure: null, extras: [] });
  });

  it("boundary with a non-integer threshold: 3891/4096 no, 3892/4096 yes", () => {
    expect(extrasOf({ finishReasons: ["length"], maxTokens: 4096, outputTokens: 3891 })).toEqual([]);
    expect(extrasOf({ finishReasons: ["length"], maxTokens: 4096, outputTokens: 3892 })).toEqual(["token_limit"]);
  });

  it("fires at 100% with ratio 1", () => {
    const r = classify({ finishReasons: ["length"], maxTokens: 4096, outputTokens: 4096 });
    expect(r.extras[0]).toMatchObject({ type: "token_limit", detail: { ratio: 1, output_tokens: 4096, max_tokens: 4096 } });
  });

  it("accepts Anthropic `max_tokens` stop reason", () => {
    const r = classify({ model: "claude-sonnet-4", finishReasons: ["max_tokens"], maxTokens: 1024, outputTokens: 1024 });
    expect(r.extras).toEqual([
      { type: "token_limit", detail: { model: "claude-sonnet-4", output_tokens: 1024, max_tokens: 1024, ratio: 1 } },
    ]);
  });

  it("accepts Gemini `MAX_TOKENS` finish reason", () => {
    const r = classify({ model: "gemini-2.5-pro", finishReasons: ["MAX_TOKENS"], maxTokens: 2000, outputTokens: 1990 });
    expect(r.extras).toEqual([
      { type: "token_limit", detail: { model: "gemini-2.5-pro", output_tokens: 1990, max_tokens: 2000, ratio: 0.995 } },
    ]);
  });

  it("needs a length finish: a `stop` finish at max output does not fire", () => {
    expect(extrasOf({ finishReasons: ["stop"], maxTokens: 1000, outputTokens: 1000 })).toEqual([]);
  });

  it("needs max_tokens and output_tokens", () => {
    expect(extrasOf({ finishReasons: ["length"], maxTokens: null, outputTokens: 1000 })).toEqual([]);
    expect(extrasOf({ finishReasons: ["length"], maxTokens: 1000, outputTokens: null })).toEqual([]);
  });
});

describe("sse_truncated", () => {
  const stream = { isSse: true, finishReasons: [] as string[] };

  it("fires for a stream without its terminal event lasting exactly 1000 ms", () => {
    const r = classify({ ...stream, sseDone: false, durationMs: 1000 });
    expect(r.failure).toEqual({
      type: "sse_truncated",
      detail: { duration_ms: 1000, finish_reasons: [], model: "gpt-4o" },
    });
    expect(r.extras).toEqual([]);
  });

  it("does not fire at 999 ms", () => {
    expect(failureOf({ ...stream, sseDone: false, durationMs: 999 })).toBeNull();
  });

  it("sse_done null with no finish reasons counts as not done", () => {
    expect(streamCompleted({ sseDone: null, finishReasons: [] })).toBe(false);
    expect(streamCompleted({ sseDone: null, finishReasons: [""] })).toBe(false);
    expect(failureOf({ ...stream, sseDone: null, durationMs: 5000 })).toBe("sse_truncated");
  });

  it("sse_done null with finish reason `stop` counts as done", () => {
    expect(streamCompleted({ sseDone: null, finishReasons: ["stop"] })).toBe(true);
    expect(failureOf({ isSse: true, sseDone: null, finishReasons: ["stop"], durationMs: 5000 })).toBeNull();
  });

  it("an explicit sse_done wins over finish reasons", () => {
    expect(streamCompleted({ sseDone: true, finishReasons: [] })).toBe(true);
    expect(streamCompleted({ sseDone: false, finishReasons: ["stop"] })).toBe(false);
    expect(failureOf({ isSse: true, sseDone: true, finishReasons: [], durationMs: 5000 })).toBeNull();
  });

  it("a non-streamed call is never sse_truncated", () => {
    expect(failureOf({ isSse: false, sseDone: false, finishReasons: [], durationMs: 5000 })).toBeNull();
  });

  it("a cancelled stream is not sse_truncated", () => {
    expect(failureOf({ ...stream, sseDone: false, durationMs: 5000, cancelled: true })).toBeNull();
  });
});

describe("slow_response", () => {
  it("fires at exactly 120 000 ms with {duration_ms, threshold_ms}", () => {
    const r = classify({ durationMs: 120_000 });
    expect(r.failure).toBeNull();
    expect(r.extras).toHaveLength(1);
    expect(r.extras[0].type).toBe("slow_response");
    expect(r.extras[0].detail).toMatchObject({ duration_ms: 120_000, threshold_ms: 120_000 });
  });

  it("does not fire at 119 999 ms", () => {
    expect(extrasOf({ durationMs: 119_999 })).toEqual([]);
  });

  it("a failed (500) slow call gets only its failure type", () => {
    const r = classify({ statusCode: 500, responseBody: '{"error":{"message":"boom"}}', durationMs: 200_000 });
    expect(r.failure?.type).toBe("llm_error");
    expect(r.extras).toEqual([]);
  });

  it("fires for a call whose status went unrecorded (no status, no error), not for a cancelled one", () => {
    // an OTLP span with content capture off carries no status: before, it was never slow
    expect(extrasOf({ statusCode: null, durationMs: 130_000 })).toEqual(["slow_response"]);
    expect(classify({ statusCode: null, durationMs: 130_000, cancelled: true })).toEqual({ failure: null, extras: [] });
    // nor for a 2xx the client hung up on (the proxy records it 200, cancelled): it did not succeed
    expect(classify({ durationMs: 130_000, cancelled: true })).toEqual({ failure: null, extras: [] });
    expect(failureOf({ statusCode: null, error: "socket hang up", durationMs: 130_000 })).toBe("llm_error");
  });

  it("a slow 429 is rate_limit only", () => {
    const r = classify({ statusCode: 429, responseBody: "slow down", durationMs: 200_000 });
    expect(r).toMatchObject({ failure: { type: "rate_limit" }, extras: [] });
  });
});

describe("token_limit and slow_response together", () => {
  it("a call with no failure can get both", () => {
    const r = classify({ finishReasons: ["length"], maxTokens: 1000, outputTokens: 1000, durationMs: 130_000 });
    expect(r.failure).toBeNull();
    expect(r.extras.map((e) => e.type)).toEqual(["token_limit", "slow_response"]);
  });

  it("a failing call gets neither", () => {
    const r = classify({
      statusCode: 200,
      error: "stream error: upstream reset",
      finishReasons: ["length"],
      maxTokens: 1000,
      outputTokens: 1000,
      durationMs: 130_000,
    });
    expect(r.failure?.type).toBe("llm_error");
    expect(r.extras).toEqual([]);
  });
});

describe("resource_exhaustion vs rate_limit", () => {
  it("a 429 with insufficient_quota is resource_exhaustion, not rate_limit", () => {
    const body = JSON.stringify({
      error: { code: "insufficient_quota", type: "insufficient_quota", message: "You exceeded your current quota, please check your plan and billing details." },
    });
    const r = classify({ statusCode: 429, responseBody: body });
    expect(r.failure?.type).toBe("resource_exhaustion");
    expect(r.failure?.detail).toMatchObject({ status_code: 429, error_code: "insufficient_quota" });
  });

  it("a plain 429 is rate_limit", () => {
    const r = classify({ statusCode: 429, responseBody: '{"error":{"code":"rate_limit_exceeded","message":"Rate limit reached"}}' });
    expect(r.failure?.type).toBe("rate_limit");
    expect(r.failure?.detail).toMatchObject({ status_code: 429, error_code: "rate_limit_exceeded" });
    expect(failureOf({ statusCode: 429, responseBody: null })).toBe("rate_limit");
  });

  it("a 402 is resource_exhaustion", () => {
    expect(failureOf({ statusCode: 402, responseBody: "Payment Required" })).toBe("resource_exhaustion");
  });

  it("Anthropic credit balance text is resource_exhaustion", () => {
    const body = '{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low"}}';
    expect(failureOf({ statusCode: 400, responseBody: body })).toBe("resource_exhaustion");
  });

  it("rate limit text in an error with no status is rate_limit", () => {
    expect(failureOf({ statusCode: null, error: "Too Many Requests" })).toBe("rate_limit");
  });
});

describe("safety_filter", () => {
  it("an Azure 400 content_filter error is safety_filter", () => {
    const body = JSON.stringify({
      error: {
        code: "content_filter",
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        param: "prompt",
        status: 400,
      },
    });
    const r = classify({ statusCode: 400, responseBody: body });
    expect(r.failure?.type).toBe("safety_filter");
    expect(r.failure?.detail).toMatchObject({ status_code: 400, error_code: "content_filter" });
  });

  it("a 400 content_policy_violation is safety_filter", () => {
    const body = '{"error":{"code":"content_policy_violation","message":"Your request was rejected"}}';
    expect(failureOf({ statusCode: 400, responseBody: body })).toBe("safety_filter");
  });

  it.each(["content_filter", "refusal", "SAFETY"])("finish reason %s on a 200 is safety_filter", (reason) => {
    const r = classify({ finishReasons: [reason] });
    expect(r.failure).toEqual({ type: "safety_filter", detail: { finish_reasons: [reason], model: "gpt-4o" } });
    expect(r.extras).toEqual([]);
  });

  it("a 200 whose output body mentions content_filter is not safety_filter", () => {
    expect(failureOf({ responseBody: '{"choices":[{"message":{"content":"set content_filter=off"}}]}' })).toBeNull();
  });
});

describe("context_overflow", () => {
  it("HTTP 413 is context_overflow", () => {
    const r = classify({ statusCode: 413, responseBody: "Request Entity Too Large" });
    expect(r.failure?.type).toBe("context_overflow");
    expect(r.failure?.detail).toMatchObject({ status_code: 413 });
  });

  it("a 400 with context_length_exceeded is context_overflow", () => {
    const body = JSON.stringify({
      error: { code: "context_length_exceeded", message: "This model's maximum context length is 128000 tokens." },
    });
    const r = classify({ statusCode: 400, responseBody: body });
    expect(r.failure?.type).toBe("context_overflow");
    expect(r.failure?.detail).toMatchObject({ status_code: 400, error_code: "context_length_exceeded" });
  });

  it("Anthropic `prompt is too long` is context_overflow", () => {
    const body = '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}';
    expect(failureOf({ statusCode: 400, responseBody: body })).toBe("context_overflow");
  });

  it("a 200 with finish `length` and input_tokens > 4 × max_tokens is context_overflow", () => {
    const r = classify({ finishReasons: ["length"], inputTokens: 4001, maxTokens: 1000, outputTokens: 1000 });
    expect(r.failure).toEqual({
      type: "context_overflow",
      detail: { rule: "length_with_large_input", input_tokens: 4001, max_tokens: 1000, model: "gpt-4o" },
    });
    expect(r.extras).toEqual([]);
  });

  it("a `length` finish with a large input and no recorded status (content capture off) is context_overflow too", () => {
    expect(failureOf({ statusCode: null, finishReasons: ["length"], inputTokens: 4001, maxTokens: 1000, outputPartCount: 0 })).toBe("context_overflow");
  });

  it("exactly 4 × max_tokens is not context_overflow; token_limit is checked instead", () => {
    const r = classify({ finishReasons: ["length"], inputTokens: 4000, maxTokens: 1000, outputTokens: 1000 });
    expect(r.failure).toBeNull();
    expect(r.extras.map((e) => e.type)).toEqual(["token_limit"]);
    expect(classify({ finishReasons: ["length"], inputTokens: 4000, maxTokens: 1000, outputTokens: 10 })).toEqual({
      failure: null,
      extras: [],
    });
  });

  it("large input without a length finish is not context_overflow", () => {
    expect(failureOf({ finishReasons: ["stop"], inputTokens: 100_000, maxTokens: 1000 })).toBeNull();
  });

  it("a 413 that also says rate_limit is context_overflow (checked first)", () => {
    expect(failureOf({ statusCode: 413, responseBody: '{"error":{"code":"rate_limit","message":"too big"}}' })).toBe(
      "context_overflow",
    );
  });
});

describe("keyword rules never read normal output", () => {
  it("a 200 whose body says `rate limit exceeded` has no failure", () => {
    expect(classify({ responseBody: "rate limit exceeded" })).toEqual({ failure: null, extras: [] });
  });

  it("a 200 whose body talks about timeouts, overload, quotas and context windows has no failure", () => {
    const body = JSON.stringify({
      choices: [
        {
          message: {
            content:
              "If you hit a rate limit or a timeout (ETIMEDOUT), or the server is overloaded, or insufficient_quota, " +
              "or context_length_exceeded, or invalid_api_key, retry with backoff.",
          },
          finish_reason: "stop",
        },
      ],
    });
    expect(classify({ responseBody: body })).toEqual({ failure: null, extras: [] });
  });

  it("a 201 body is also ignored", () => {
    expect(failureOf({ statusCode: 201, responseBody: "service unavailable" })).toBeNull();
  });
});

describe("auth_error", () => {
  it.each([401, 403])("HTTP %i is auth_error", (status) => {
    const r = classify({ statusCode: status, responseBody: "nope" });
    expect(r.failure?.type).toBe("auth_error");
    expect(r.failure?.detail).toMatchObject({ status_code: status, message: "nope" });
  });

  it("invalid_api_key in a 400 body is auth_error", () => {
    expect(failureOf({ statusCode: 400, responseBody: '{"error":{"code":"invalid_api_key","message":"Incorrect API key"}}' })).toBe(
      "auth_error",
    );
  });

  it("invalid_api_key in the error text (no status) is auth_error", () => {
    expect(failureOf({ statusCode: null, error: "OpenAIError: invalid_api_key" })).toBe("auth_error");
  });

  it("Anthropic authentication_error is auth_error", () => {
    expect(failureOf({ statusCode: 400, responseBody: '{"type":"error","error":{"type":"authentication_error"}}' })).toBe("auth_error");
  });
});

describe("network_timeout", () => {
  it.each([408, 504])("HTTP %i is network_timeout", (status) => {
    expect(failureOf({ statusCode: status, responseBody: "" })).toBe("network_timeout");
  });

  it("ETIMEDOUT with no status is network_timeout", () => {
    const r = classify({ statusCode: null, error: "connect ETIMEDOUT 10.0.0.1:443", outputPartCount: 0 });
    expect(r.failure?.type).toBe("network_timeout");
    expect(r.failure?.detail).toMatchObject({ status_code: null, message: "connect ETIMEDOUT 10.0.0.1:443" });
  });

  it("`Request timed out.` is network_timeout", () => {
    expect(failureOf({ statusCode: null, error: "Request timed out." })).toBe("network_timeout");
  });
});

describe("service_unavailable", () => {
  it.each([502, 503, 529])("HTTP %i is service_unavailable", (status) => {
    expect(failureOf({ statusCode: status, responseBody: "" })).toBe("service_unavailable");
  });

  it("`overloaded` in a 500 body is service_unavailable", () => {
    expect(failureOf({ statusCode: 500, responseBody: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' })).toBe(
      "service_unavailable",
    );
  });

  it("`overloaded` in an error inside a stream is service_unavailable", () => {
    expect(failureOf({ statusCode: 200, isSse: true, error: "overloaded_error: Overloaded" })).toBe("service_unavailable");
  });

  it("a 503 whose body says rate limit is rate_limit (checked before service_unavailable)", () => {
    expect(failureOf({ statusCode: 503, responseBody: "upstream rate limit reached" })).toBe("rate_limit");
  });
});

describe("state_machine_error", () => {
  it("an unbalanced history is state_machine_error with the ids", () => {
    const r = classify({ unbalanced: balance({ dangling: ["call_a"], orphan: ["call_x"], duplicate: ["call_b"] }) });
    expect(r.failure?.type).toBe("state_machine_error");
    expect(r.failure?.detail).toMatchObject({
      rule: "unbalanced_tool_calls",
      dangling: ["call_a"],
      orphan: ["call_x"],
      duplicate: ["call_b"],
    });
    expect(r.extras).toEqual([]);
  });

  it("an unbalanced history rejected with 400 is state_machine_error", () => {
    const r = classify({
      statusCode: 400,
      responseBody: '{"error":{"message":"An assistant message with tool_calls must be followed by tool messages"}}',
      unbalanced: balance({ dangling: ["call_a"] }),
    });
    expect(r.failure?.detail).toMatchObject({ rule: "unbalanced_tool_calls", dangling: ["call_a"], status_code: 400 });
  });

  it("a 400 saying tool_use ids were found without tool_result is state_machine_error", () => {
    const body =
      '{"type":"error","error":{"type":"invalid_request_error","message":"messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01"}}';
    // the spec's plain phrase, and Anthropic's real message (block names in backticks)
    const plain = '{"type":"error","error":{"type":"invalid_request_error","message":"tool_use ids were found without tool_result blocks"}}';
    const r = classify({ statusCode: 400, responseBody: plain });
    expect(r.failure?.type).toBe("state_machine_error");
    expect(r.failure?.detail).toMatchObject({ rule: "provider_rejected_history", status_code: 400 });
    const real = classify({ statusCode: 400, responseBody: body });
    expect(real.failure?.type).toBe("state_machine_error");
    expect(real.failure?.detail).toMatchObject({ rule: "provider_rejected_history", error_code: "invalid_request_error" });
  });

  it("an OpenAI 400 `must be followed by tool messages` is state_machine_error", () => {
    const body =
      "{\"error\":{\"message\":\"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.\"}}";
    expect(failureOf({ statusCode: 400, responseBody: body })).toBe("state_machine_error");
  });

  it("an invalid 2xx body is state_machine_error", () => {
    const r = classify({ responseBody: "<html>not json</html>", responseInvalid: true });
    expect(r.failure?.type).toBe("state_machine_error");
    expect(r.failure?.detail).toMatchObject({ rule: "invalid_response_body", status_code: 200 });
  });

  it("a 400 in a bricked conversation carries bricked_since_call_id", () => {
    const r = classify({
      statusCode: 400,
      responseBody: '{"error":{"message":"tool_use ids were found without tool_result blocks"}}',
      brickedSinceCallId: "call-root",
    });
    expect(r.failure?.type).toBe("state_machine_error");
    expect(r.failure?.detail).toMatchObject({ bricked_since_call_id: "call-root" });
  });

  it("any 400 failure in a bricked conversation carries bricked_since_call_id", () => {
    const r = classify({ statusCode: 400, responseBody: "bad request", brickedSinceCallId: "call-root" });
    expect(r.failure?.type).toBe("llm_error");
    expect(r.failure?.detail).toMatchObject({ bricked_since_call_id: "call-root" });
  });

  it("a non-400 failure does not carry bricked_since_call_id", () => {
    const r = classify({ statusCode: 500, responseBody: "boom", brickedSinceCallId: "call-root" });
    expect(r.failure?.detail).not.toHaveProperty("bricked_since_call_id");
  });
});

describe("llm_error", () => {
  it.each([500, 404])("HTTP %i is llm_error", (status) => {
    const r = classify({ statusCode: status, responseBody: '{"error":{"type":"server_error","message":"oops"}}' });
    expect(r.failure?.type).toBe("llm_error");
    expect(r.failure?.detail).toMatchObject({ status_code: status, error_code: "server_error" });
  });

  it("an error inside a stream with status 200 is llm_error", () => {
    const r = classify({ statusCode: 200, isSse: true, sseDone: false, error: '{"error":"upstream reset"}' });
    expect(r.failure?.type).toBe("llm_error");
    expect(r.failure?.detail).toMatchObject({ status_code: 200, message: '{"error":"upstream reset"}' });
  });

  it("an error with no status is llm_error", () => {
    expect(failureOf({ statusCode: null, error: "socket hang up" })).toBe("llm_error");
  });

  it("a cancelled call with an error has no failure", () => {
    expect(classify({ statusCode: null, error: "AbortError: The operation was aborted", cancelled: true })).toEqual({
      failure: null,
      extras: [],
    });
  });
});

describe("empty_response", () => {
  it("a 200 with no output part is empty_response", () => {
    const r = classify({ outputPartCount: 0 });
    expect(r.failure).toEqual({
      type: "empty_response",
      detail: { status_code: 200, finish_reasons: ["stop"], model: "gpt-4o" },
    });
  });

  it("a cancelled call is not empty_response", () => {
    expect(failureOf({ outputPartCount: 0, cancelled: true })).toBeNull();
  });

  it("a call whose turn was suspended or handed off is not empty_response", () => {
    expect(failureOf({ outputPartCount: 0, turnSuspended: true })).toBeNull();
  });

  it("a call whose answer was not recorded whole (the capture layer's cap) is not empty_response", () => {
    expect(failureOf({ outputPartCount: 0, recordingTruncated: true })).toBeNull();
  });

  it("a non-2xx call with no output is its failure type, not empty_response", () => {
    expect(failureOf({ statusCode: 500, outputPartCount: 0 })).toBe("llm_error");
  });
});

describe("errorCode", () => {
  it("reads error.code, then error.type, then a string error", () => {
    expect(errorCode('{"error":{"code":"content_filter","type":"x"}}')).toBe("content_filter");
    expect(errorCode('{"error":{"type":"overloaded_error"}}')).toBe("overloaded_error");
    expect(errorCode('{"error":"bad thing"}')).toBe("bad thing");
    expect(errorCode("not json")).toBeNull();
    expect(errorCode(null)).toBeNull();
    expect(errorCode("null")).toBeNull();
  });
});

describe("crashReason", () => {
  it("oom is a crash", () => {
    expect(crashReason({ oom: true, signal: "SIGKILL", exit_code: 137 }, false)).toBe("oom");
  });

  it.each(["SIGKILL", "SIGSEGV"])("%s is a signal crash", (signal) => {
    expect(crashReason({ signal, exit_code: null, oom: false }, false)).toBe("signal");
  });

  it("SIGTERM with an unsettled turn is killed_mid_turn", () => {
    expect(crashReason({ signal: "SIGTERM" }, true)).toBe("killed_mid_turn");
  });

  it("SIGTERM with no unsettled turn (e.g. after a drained turn) is not a crash", () => {
    expect(crashReason({ signal: "SIGTERM" }, false)).toBeNull();
    expect(crashReason({ signal: "SIGINT" }, false)).toBeNull();
  });

  it("a non-zero exit code is a crash", () => {
    expect(crashReason({ exit_code: 1 }, false)).toBe("exit_code");
  });

  it("exit code 0 is not a crash", () => {
    expect(crashReason({ exit_code: 0 }, false)).toBeNull();
    expect(crashReason({ exit_code: 0, signal: null, oom: false }, true)).toBeNull();
  });

  it("numeric signals: 9 is a crash, 15 with no unsettled turn is not", () => {
    expect(crashReason({ signal: 9 }, false)).toBe("signal");
    expect(crashReason({ signal: 15 }, false)).toBeNull();
    expect(crashReason({ signal: 15 }, true)).toBe("killed_mid_turn");
  });
});
