// Shapes of the trajectory API responses as the browser sees them. Long nanosecond values
// arrive as exact digit strings (components/api/client.ts); short ones (durations under
// ~115 days) may arrive as plain numbers, so every `*_ns` value is `NsValue`.
import type { Imbalance, ToolBalance } from "../detect/toolBalance";

export type NsValue = string | number;

export type CallMarker = {
  interruption_id: string;
  interruption_type: string;
  severity: string;
  status?: string;
};

/** The tool-call balance of a request history, as the API sends it (SPEC §3.2). */
export type ToolBalanceInfo = ToolBalance;

export type CallSummary = {
  call_id: string;
  trace_id?: string | null;
  session_id?: string | null;
  conversation_id: string | null;
  turn_id: string | null;
  agent_name?: string | null;
  provider?: string | null;
  model: string | null;
  start_ns: NsValue;
  end_ns: NsValue | null;
  duration_ns: NsValue | null;
  status_code: number | null;
  error: string | null;
  is_sse?: boolean | null;
  sse_done?: boolean | null;
  cancelled?: boolean | null;
  /** bytes the capture layer did not record (the call's bodies are incomplete) */
  recording_truncated?: number | null;
  max_tokens?: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  finish_reasons: string[];
  input_message_count?: number;
  output_message_count?: number;
  unbalanced_tool_calls?: Imbalance | null;
  interruptions: CallMarker[];
};

export type TurnInfo = {
  turn_id: string;
  first_seen_ns: NsValue;
  last_seen_ns: NsValue;
  call_count: number;
  end_reason: string | null;
  ended_at_ns: NsValue | null;
};

export type ConversationInfo = {
  conversation_id: string;
  first_seen_ns: NsValue;
  last_seen_ns: NsValue;
  call_count: number;
  bricked_since_call_id: string | null;
  turns: TurnInfo[];
};

export type SessionDetail = {
  session_id: string;
  agent_name: string | null;
  pid: number | null;
  host: string | null;
  process_name: string | null;
  first_seen_ns: NsValue;
  last_seen_ns: NsValue;
  call_count: number;
  conversation_count: number;
  input_tokens: number;
  output_tokens: number;
  model: string | null;
  exited_at_ns: NsValue | null;
  exit_code: number | null;
  exit_signal: string | null;
  oom: boolean | null;
  open_interruptions: { total: number; by_severity: Record<string, number>; types: { interruption_type: string; severity: string; count: number }[] };
  conversations: ConversationInfo[];
};

export type TextPart = { type: "text"; content: string };
export type ReasoningPart = { type: "reasoning"; content: string };
export type ToolCallPart = { type: "tool_call"; id: string; name: string; arguments: unknown };
export type ToolCallResponsePart = { type: "tool_call_response"; id: string; response: unknown; is_error?: boolean };
export type Part = TextPart | ReasoningPart | ToolCallPart | ToolCallResponsePart;
export type Message = { role: string; parts: Part[]; finish_reason?: string };

/** A tool call as recorded from tool_result events or histories (`tool_calls` of a call). */
export type ToolCallRecord = {
  tool_call_id: string;
  name: string | null;
  arguments: string | null;
  response: string | null;
  success: boolean | null;
  error: string | null;
  duration_ns: NsValue | null;
};

export type CallDetail = CallSummary & {
  system_instructions: Part[];
  input_messages: Message[];
  output_messages: Message[];
  tool_balance: ToolBalanceInfo;
  tool_calls: ToolCallRecord[];
};

export type ActivityEntry = {
  actor: string;
  action: string;
  before: unknown;
  after: unknown;
  note: string | null;
  at_ns: NsValue;
};
