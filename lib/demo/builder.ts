// Building blocks of the demo traffic: agents, sessions and conversations whose message
// history grows call by call (the history of call k is the history of call k-1 plus its
// assistant output plus the tool results), emitted as the JSON payloads a client POSTs to
// /api/ingest/calls, /api/ingest/http and /api/ingest/events (SPEC §2). Times are digit
// strings of nanoseconds relative to a base time; everything else is deterministic.
import { deriveConversationId, deriveSessionId, deriveTurnId } from "../ingest/keys";
import type { ChatMessage, Part, ToolCallPart } from "../domain/calls";
import { Rng, uuidFrom } from "./rng";
import { anthropicMessages, anthropicSse, openaiMessages, openaiResponse, openaiSse, type JsonObject } from "./wire";

// ---------------------------------------------------------------------------------------------
// Payloads (what a client sends)

/** Integer nanoseconds as a digit string: exact in JSON. */
export type NsString = string;

export type CallPayload = {
  call_id: string;
  trace_id?: string;
  session_id?: string;
  conversation_id?: string;
  turn_id?: string;
  agent_name: string;
  pid: number;
  process_name: string;
  host: string;
  provider: string;
  model: string;
  server_address: string;
  start_ns: NsString;
  end_ns?: NsString;
  duration_ns?: NsString;
  status_code?: number;
  error?: string;
  response_body?: string;
  is_sse: boolean;
  sse_event_count?: number;
  sse_done?: boolean;
  cancelled?: boolean;
  max_tokens: number;
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  finish_reasons: string[];
  system_instructions: Part[];
  input_messages: ChatMessage[];
  output_messages: ChatMessage[];
  tools?: JsonObject[];
  /** not part of the normalized form: kept in the call's raw record */
  demo_scenario: string;
};

export type ExchangePayload = {
  call_id: string;
  session_id?: string;
  conversation_id?: string;
  turn_id?: string;
  agent_name: string;
  pid: number;
  process_name: string;
  host: string;
  start_ns: NsString;
  end_ns: NsString;
  request: { method: string; url: string; headers: Record<string, string>; body: JsonObject };
  response: { status: number; headers: Record<string, string>; body?: JsonObject; sse?: string };
  error?: string;
};

export type ProcessExitPayload = {
  kind: "process_exit";
  pid: number;
  agent_name: string;
  host: string;
  session_id?: string;
  at_ns: NsString;
  exit_code?: number | null;
  signal?: string | null;
  oom?: boolean;
};

export type TurnEndReason = "completed" | "steered" | "drained" | "dispatched" | "awaiting" | "failed" | "cancelled";

export type TurnEndPayload = {
  kind: "turn_end";
  session_id: string;
  conversation_id: string;
  turn_id: string;
  reason: TurnEndReason;
  at_ns: NsString;
  final_event_id?: string;
};

export type ToolResultPayload = {
  kind: "tool_result";
  session_id: string;
  conversation_id: string;
  call_id?: string;
  tool_call_id: string;
  name: string;
  arguments?: unknown;
  success: boolean;
  error?: string;
  response?: string;
  duration_ns: NsString;
  at_ns: NsString;
};

export type EventPayload = ProcessExitPayload | TurnEndPayload | ToolResultPayload;

export type DemoData = { calls: CallPayload[]; exchanges: ExchangePayload[]; events: EventPayload[] };

// ---------------------------------------------------------------------------------------------
// Agents

export type Wire = "openai" | "anthropic";

export type AgentProfile = {
  name: string;
  wire: Wire;
  provider: string;
  model: string;
  /** model id the provider echoes in responses */
  responseModel: string;
  serverAddress: string;
  url: string;
  processName: string;
  maxTokens: number;
  /** which keys the agent sends itself; SightDesk derives the others (SPEC §2.4) */
  keys: "all" | "session+conversation" | "none";
  /** output speed, tokens per second */
  tokensPerSecond: [number, number];
  /** time to first token, ms */
  latencyMs: [number, number];
  stream: boolean;
};

export const MS = 1_000_000n;
export const SECOND = 1_000n * MS;
export const MINUTE = 60n * SECOND;

const ns = (v: bigint): NsString => v.toString();
const ms = (v: number): bigint => BigInt(Math.round(v)) * MS;

/** Rough token count of a text (≈ 4 characters per token). */
export function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

const messageTokens = (m: ChatMessage) => 4 + tokens(JSON.stringify(m.parts));

// ---------------------------------------------------------------------------------------------
// The demo

export class Demo {
  readonly calls: CallPayload[] = [];
  readonly exchanges: ExchangePayload[] = [];
  readonly events: EventPayload[] = [];
  private readonly callIds = new Set<string>();

  /**
   * `copy` > 0 makes the same scenarios run by other processes: new session, conversation, turn
   * and call ids, pids `copy` × 1000 higher (sustained load, `bench/storage.ts`). 0 is the demo.
   */
  constructor(
    readonly baseNs: bigint,
    readonly copy = 0,
  ) {}

  /** The base time plus `minutes`. */
  at(minutes: number): bigint {
    return this.baseNs + ms(minutes * 60_000);
  }

  claimCallId(id: string): string {
    if (this.callIds.has(id)) throw new Error(`demo: duplicate call id ${id}`);
    this.callIds.add(id);
    return id;
  }

  /** A session (one agent process) starting `start` minutes after the base time, or at `start` ns. */
  session(label: string, agent: AgentProfile, pid: number, host: string, start: number | bigint): SessionBuilder {
    const [l, p] = this.copy ? [`${label}#${this.copy}`, pid + this.copy * 1000] : [label, pid];
    return new SessionBuilder(this, l, agent, p, host, typeof start === "bigint" ? start : this.at(start));
  }

  data(): DemoData {
    const byTime = <T>(items: T[], key: (t: T) => string) =>
      [...items].sort((a, b) => {
        const x = BigInt(key(a));
        const y = BigInt(key(b));
        return x < y ? -1 : x > y ? 1 : 0;
      });
    return {
      calls: byTime(this.calls, (c) => c.start_ns),
      exchanges: byTime(this.exchanges, (x) => x.start_ns),
      events: byTime(this.events, (e) => e.at_ns),
    };
  }
}

export class SessionBuilder {
  /** the session id: sent by the agent, or the one SightDesk derives */
  readonly id: string;
  /** latest time any of its conversations reached */
  lastNs: bigint;

  constructor(
    readonly demo: Demo,
    readonly label: string,
    readonly agent: AgentProfile,
    readonly pid: number,
    readonly host: string,
    readonly startNs: bigint,
  ) {
    this.id = agent.keys === "none" ? deriveSessionId(agent.name, pid, host) : uuidFrom("session", label);
    this.lastNs = startNs;
  }

  get sendsSession(): boolean {
    return this.agent.keys !== "none";
  }

  /** A conversation starting `offsetMinutes` after the session start (or at `startNs`). */
  conversation(
    label: string,
    o: { system: string; tools?: JsonObject[]; scenario: string; offsetMinutes?: number; startNs?: bigint },
  ): ConversationBuilder {
    const start = o.startNs ?? this.startNs + ms((o.offsetMinutes ?? 0) * 60_000);
    return new ConversationBuilder(this, `${this.label}/${label}`, o.system, o.tools, o.scenario, start);
  }

  /** The process exits `afterMs` after the session's last activity (or at `atNs`). */
  exit(o: { afterMs?: number; atNs?: bigint; exitCode?: number | null; signal?: string | null; oom?: boolean }): ProcessExitPayload {
    const at = o.atNs ?? this.lastNs + ms(o.afterMs ?? 1500);
    const e: ProcessExitPayload = {
      kind: "process_exit",
      pid: this.pid,
      agent_name: this.agent.name,
      host: this.host,
      ...(this.sendsSession ? { session_id: this.id } : {}),
      at_ns: ns(at),
      exit_code: o.exitCode ?? null,
      signal: o.signal ?? null,
      ...(o.oom ? { oom: true } : {}),
    };
    this.demo.events.push(e);
    return e;
  }
}

export type ToolSpec = { name: string; args: Record<string, unknown> };

export type ToolOutcome = string | { response: string; isError?: boolean; durationMs?: number };

export type StepSpec = {
  reasoning?: string;
  text?: string;
  tools?: ToolSpec[];
  /** default: tool_calls / tool_use when tools were called, else stop / end_turn */
  finish?: string;
  /** HTTP status; null: no response at all (a client-side error); default 200 */
  status?: number | null;
  error?: string;
  responseBody?: string;
  durationMs?: number;
  outputTokens?: number;
  inputTokens?: number;
  maxTokens?: number;
  /** 2xx with no output part at all */
  empty?: boolean;
  cancelled?: boolean;
  /** the stream saw its terminal event (default: true for a successful stream) */
  sseDone?: boolean;
  /** append the output to the history (default: a 2xx answer with parts that was not cancelled) */
  keep?: boolean;
  /** override the call id (else derived from the conversation label and the call's index) */
  callId?: string;
};

export type ExchangeSpec = StepSpec & {
  /** request a stream; `cutAfter` chunks simulates a cut stream (OpenAI only) */
  stream?: boolean;
  cutAfter?: number;
  /** a JSON error body for a non-2xx response */
  errorBody?: JsonObject;
  responseHeaders?: Record<string, string>;
};

/** Fake credentials on raw exchanges: SightDesk must never store them. */
export const DEMO_OPENAI_KEY = "sk-demo-0penai7c1f0b9e4d2a8f6357c0de4a11";
export const DEMO_DASHSCOPE_KEY = "sk-demo-dashscope5b8e2f1a9c7d3e6b0f41";
export const DEMO_ANTHROPIC_KEY = "sk-ant-api03-demoKEY-9f8e7d6c5b4a39281706f5e4d3c2b1a0";

export class ConversationBuilder {
  readonly rng: Rng;
  readonly history: ChatMessage[] = [];
  /** current time of this conversation */
  t: bigint;
  lastCallId: string | null = null;
  private pending: ToolCallPart[] = [];
  private turnSeq = 0;
  private explicitTurnId: string | null = null;
  private callSeq = 0;
  private prevInputTokens = 0;
  private readonly systemTokens: number;

  constructor(
    readonly session: SessionBuilder,
    readonly label: string,
    readonly system: string,
    readonly tools: JsonObject[] | undefined,
    readonly scenario: string,
    start: bigint,
  ) {
    this.rng = new Rng(label);
    this.t = start;
    this.systemTokens = tokens(system) + (tools ? tokens(JSON.stringify(tools)) : 0);
  }

  private get agent(): AgentProfile {
    return this.session.agent;
  }

  private get demo(): Demo {
    return this.session.demo;
  }

  /** The conversation id: sent by the agent, or the one SightDesk derives from the history. */
  get conversationId(): string {
    if (this.agent.keys !== "none") return uuidFrom("conversation", this.label).replace(/-/g, "");
    return deriveConversationId(this.session.id, { system_instructions: this.systemParts(), input_messages: this.history });
  }

  /** The current turn id: sent by the agent, or the one SightDesk derives from the history. */
  get turnId(): string {
    return this.explicitTurnId ?? deriveTurnId(this.conversationId, this.history);
  }

  private systemParts(): Part[] {
    return [{ type: "text", content: this.system }];
  }

  private touch(): void {
    if (this.t > this.session.lastNs) this.session.lastNs = this.t;
  }

  wait(milliseconds: number): this {
    this.t += ms(milliseconds);
    this.touch();
    return this;
  }

  /** A user message: starts a new turn after the user's think time. */
  user(text: string, thinkMs?: number): this {
    if (this.history.length > 0) this.wait(thinkMs ?? this.rng.int(20_000, 150_000));
    this.history.push({ role: "user", parts: [{ type: "text", content: text }] });
    this.turnSeq += 1;
    this.explicitTurnId = this.agent.keys === "all" ? uuidFrom("turn", this.label, String(this.turnSeq)) : null;
    return this;
  }

  private keyFields(): Pick<CallPayload, "session_id" | "conversation_id" | "turn_id"> {
    const k = this.agent.keys;
    return {
      ...(k !== "none" ? { session_id: this.session.id, conversation_id: this.conversationId } : {}),
      ...(k === "all" ? { turn_id: this.turnId } : {}),
    };
  }

  private nextCallId(spec: StepSpec): string {
    this.callSeq += 1;
    return this.demo.claimCallId(spec.callId ?? uuidFrom("call", this.label, String(this.callSeq)));
  }

  private traceId(): string {
    return this.agent.wire === "anthropic" ? `msg_01${this.rng.alnum(22)}` : `chatcmpl-${this.rng.alnum(29)}`;
  }

  private toolCallId(): string {
    return this.agent.wire === "anthropic" ? `toolu_01${this.rng.alnum(22)}` : `call_${this.rng.alnum(24)}`;
  }

  private outputParts(spec: StepSpec): Part[] {
    if (spec.empty) return [];
    const parts: Part[] = [];
    if (spec.reasoning) parts.push({ type: "reasoning", content: spec.reasoning });
    if (spec.text) parts.push({ type: "text", content: spec.text });
    for (const tool of spec.tools ?? []) parts.push({ type: "tool_call", id: this.toolCallId(), name: tool.name, arguments: tool.args });
    return parts;
  }

  private finishOf(spec: StepSpec, parts: Part[]): string {
    if (spec.finish) return spec.finish;
    const tools = parts.some((p) => p.type === "tool_call");
    if (this.agent.wire === "anthropic") return tools ? "tool_use" : "end_turn";
    return tools ? "tool_calls" : "stop";
  }

  /** Timing and token numbers of one call. */
  private measure(spec: StepSpec, parts: Part[], ok: boolean) {
    const input = spec.inputTokens ?? this.systemTokens + this.history.reduce((n, m) => n + messageTokens(m), 0);
    const output = spec.outputTokens ?? (ok ? parts.reduce((n, p) => n + tokens(JSON.stringify(p)), 0) : 0);
    const [lo, hi] = this.agent.tokensPerSecond;
    const latency = this.rng.int(...this.agent.latencyMs);
    const durationMs = spec.durationMs ?? Math.min(latency + (output / this.rng.int(lo, hi)) * 1000, 90_000);
    const cacheRead = this.prevInputTokens > 1024 && ok ? Math.floor((this.prevInputTokens * 0.9) / 64) * 64 : 0;
    return { input, output, durationMs, cacheRead };
  }

  private applyOutput(spec: StepSpec, parts: Part[], ok: boolean, input: number): void {
    const keep = spec.keep ?? (ok && parts.length > 0 && !spec.cancelled);
    if (ok) this.prevInputTokens = input;
    if (!keep) return;
    this.history.push({ role: "assistant", parts });
    this.pending = parts.filter((p): p is ToolCallPart => p.type === "tool_call");
  }

  /** One LLM call sent as a normalized call (SPEC §2.1). */
  step(spec: StepSpec): CallPayload {
    const status = spec.status === undefined ? 200 : spec.status;
    const ok = status !== null && status >= 200 && status < 300 && !spec.error;
    const parts = ok ? this.outputParts(spec) : [];
    const { input, output, durationMs, cacheRead } = this.measure(spec, parts, ok);
    const start = this.t;
    const end = start + ms(durationMs);
    const callId = this.nextCallId(spec);
    const finish = ok ? this.finishOf(spec, parts) : null;
    const stream = this.agent.stream && ok;
    const call: CallPayload = {
      call_id: callId,
      ...(ok ? { trace_id: this.traceId() } : {}),
      ...this.keyFields(),
      agent_name: this.agent.name,
      pid: this.session.pid,
      process_name: this.agent.processName,
      host: this.session.host,
      provider: this.agent.provider,
      model: this.agent.model,
      server_address: this.agent.serverAddress,
      start_ns: ns(start),
      // One agent reports durations instead of end times; both forms are valid.
      ...(this.agent.keys === "none" ? { duration_ns: ns(end - start) } : { end_ns: ns(end) }),
      ...(status !== null ? { status_code: status } : {}),
      ...(spec.error ? { error: spec.error } : {}),
      ...(spec.responseBody ? { response_body: spec.responseBody } : {}),
      is_sse: stream,
      ...(stream ? { sse_event_count: Math.max(2, Math.ceil(output / 3) + 2), sse_done: spec.sseDone ?? !spec.cancelled } : {}),
      ...(spec.cancelled ? { cancelled: true } : {}),
      max_tokens: spec.maxTokens ?? this.agent.maxTokens,
      input_tokens: input,
      ...(ok ? { output_tokens: output } : {}),
      ...(ok && cacheRead ? { cache_read_tokens: cacheRead } : {}),
      finish_reasons: finish && !spec.cancelled ? [finish] : [],
      system_instructions: this.systemParts(),
      input_messages: [...this.history],
      output_messages: ok ? [{ role: "assistant", ...(finish && !spec.cancelled ? { finish_reason: finish } : {}), parts }] : [],
      ...(this.tools ? { tools: this.tools } : {}),
      demo_scenario: this.scenario,
    };
    this.demo.calls.push(call);
    this.t = end;
    this.touch();
    this.lastCallId = callId;
    this.applyOutput(spec, parts, ok, input);
    return call;
  }

  /** One LLM call sent as a raw captured HTTP exchange (SPEC §2.2), with fake credentials. */
  exchange(spec: ExchangeSpec): ExchangePayload {
    const status = spec.status ?? 200;
    const ok = status >= 200 && status < 300;
    const parts = ok ? this.outputParts(spec) : [];
    const { input, output, durationMs, cacheRead } = this.measure(spec, parts, ok);
    const start = this.t;
    const end = start + ms(durationMs);
    const callId = this.nextCallId(spec);
    const finish = this.finishOf(spec, parts);
    const usage = { input, output, cacheRead };
    const maxTokens = spec.maxTokens ?? this.agent.maxTokens;
    const anthropic = this.agent.wire === "anthropic";
    const signature = `EqQBCkYIBxgCKkB${this.rng.alnum(40)}`;
    const body: JsonObject = anthropic
      ? {
          model: this.agent.model,
          max_tokens: maxTokens,
          system: this.system,
          messages: anthropicMessages(this.history, signature),
          ...(this.tools ? { tools: this.tools } : {}),
          thinking: { type: "enabled", budget_tokens: 2048 },
          ...(spec.stream ? { stream: true } : {}),
        }
      : {
          model: this.agent.model,
          messages: openaiMessages(this.system, this.history),
          ...(this.tools ? { tools: this.tools, tool_choice: "auto" } : {}),
          max_tokens: maxTokens,
          ...(spec.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        };
    const headers: Record<string, string> = anthropic
      ? { "x-api-key": DEMO_ANTHROPIC_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json", "user-agent": "anthropic-python/0.69.0" }
      : {
          authorization: `Bearer ${this.agent.provider === "dashscope" ? DEMO_DASHSCOPE_KEY : DEMO_OPENAI_KEY}`,
          "content-type": "application/json",
          "user-agent": "OpenAI/JS 5.23.1",
        };
    const requestId = anthropic ? `req_011C${this.rng.alnum(20)}` : this.rng.hex(32);
    const traceId = this.traceId();
    const created = Number((start / SECOND).toString());
    let response: ExchangePayload["response"];
    if (!ok) {
      response = {
        status,
        headers: { "content-type": "application/json", [anthropic ? "request-id" : "x-request-id"]: requestId, ...spec.responseHeaders },
        body: spec.errorBody ?? { error: { message: spec.error ?? "error", type: "api_error" } },
      };
    } else if (spec.stream) {
      const model = this.agent.responseModel;
      const { sse } = anthropic
        ? anthropicSse({ id: traceId, model, parts, stopReason: finish, usage, signature })
        : openaiSse({ id: traceId, created, model, parts, finish, usage, cutAfter: spec.cutAfter });
      response = { status, headers: { "content-type": "text/event-stream; charset=utf-8", [anthropic ? "request-id" : "x-request-id"]: requestId }, sse };
    } else {
      const model = this.agent.responseModel;
      response = {
        status,
        headers: { "content-type": "application/json", [anthropic ? "request-id" : "x-request-id"]: requestId },
        body: anthropic
          ? {
              id: traceId, type: "message", role: "assistant", model,
              content: anthropicMessages([{ role: "assistant", parts }], signature)[0].content,
              stop_reason: finish, stop_sequence: null,
              usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: cacheRead },
            }
          : openaiResponse({ id: traceId, created, model, parts, finish, usage }),
      };
    }
    const x: ExchangePayload = {
      call_id: callId,
      ...this.keyFields(),
      agent_name: this.agent.name,
      pid: this.session.pid,
      process_name: this.agent.processName,
      host: this.session.host,
      start_ns: ns(start),
      end_ns: ns(end),
      request: { method: "POST", url: this.agent.url, headers, body },
      response,
    };
    this.demo.exchanges.push(x);
    this.t = end;
    this.touch();
    this.lastCallId = callId;
    // A cut stream's partial answer is thrown away by the client, which retries.
    this.applyOutput({ ...spec, keep: spec.keep ?? (spec.cutAfter === undefined ? undefined : false) }, parts, ok, input);
    return x;
  }

  /**
   * The results of the tool calls of the last answer, in order. With `events`, the agent also
   * reports each one as a tool_result event (with its duration).
   */
  respond(outcomes: ToolOutcome[], o: { events?: boolean } = {}): this {
    if (outcomes.length !== this.pending.length) {
      throw new Error(`demo ${this.label}: ${outcomes.length} results for ${this.pending.length} tool calls`);
    }
    const responses: Part[] = [];
    this.pending.forEach((call, i) => {
      const raw = outcomes[i];
      const outcome = typeof raw === "string" ? { response: raw } : raw;
      const durationMs = outcome.durationMs ?? this.rng.int(40, 2500);
      const startedAt = this.t;
      this.wait(durationMs);
      responses.push({ type: "tool_call_response", id: call.id, response: outcome.response, ...(outcome.isError ? { is_error: true } : {}) });
      if (o.events) {
        this.demo.events.push({
          kind: "tool_result",
          session_id: this.session.id,
          conversation_id: this.conversationId,
          ...(this.lastCallId ? { call_id: this.lastCallId } : {}),
          tool_call_id: call.id,
          name: call.name,
          arguments: call.arguments,
          success: !outcome.isError,
          ...(outcome.isError ? { error: outcome.response.split("\n")[0] } : {}),
          response: outcome.response,
          duration_ns: ns(this.t - startedAt),
          at_ns: ns(this.t),
        });
      }
    });
    if (this.agent.wire === "anthropic") this.history.push({ role: "tool", parts: responses });
    else for (const r of responses) this.history.push({ role: "tool", parts: [r] });
    this.pending = [];
    this.wait(this.rng.int(30, 400));
    return this;
  }

  /** Drops the pending tool calls without a result (the agent lost them): the history is now unbalanced. */
  loseToolResults(): this {
    this.pending = [];
    return this;
  }

  /** The turn's end as the agent reports it (SPEC §2.3). */
  endTurn(reason: TurnEndReason, afterMs = 150): TurnEndPayload {
    if (!this.session.sendsSession) throw new Error(`demo ${this.label}: turn_end needs a session id`);
    const at = this.t + ms(afterMs);
    const e: TurnEndPayload = {
      kind: "turn_end",
      session_id: this.session.id,
      conversation_id: this.conversationId,
      turn_id: this.turnId,
      reason,
      at_ns: ns(at),
      ...(this.lastCallId ? { final_event_id: this.lastCallId } : {}),
    };
    this.demo.events.push(e);
    this.t = at;
    this.touch();
    return e;
  }
}
