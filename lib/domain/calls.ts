// The normalized form of one LLM call (SPEC §2.1), after validation. Everything downstream
// (storage, detection) works on these types; provider adapters produce them.

/** A 2xx status: the provider answered the request. */
export const isSuccessStatus = (status: number | null | undefined): status is number => status != null && status >= 200 && status < 300;

/**
 * The status a call is stored with: a success whose answer its capture layer did not record
 * (an OTLP span without its content, an exchange kept as status and timing) has none, so that an
 * unknown answer never reads as an empty one (SPEC §3.1 empty_response).
 */
export const statusWithAnswer = (status: number | null, answerRecorded: boolean): number | null => (isSuccessStatus(status) && !answerRecorded ? null : status);

/** The range of an Int column (PostgreSQL `integer`): counts and pids beyond it do not fit the database. */
export const MAX_INT = 2_147_483_647;
export const MIN_INT = -2_147_483_648;

export type TextPart = { type: "text"; content: string };
export type ReasoningPart = { type: "reasoning"; content: string };
export type ToolCallPart = { type: "tool_call"; id: string; name: string; arguments: unknown };
export type ToolCallResponsePart = {
  type: "tool_call_response";
  id: string;
  response: unknown;
  is_error?: boolean;
};
export type Part = TextPart | ReasoningPart | ToolCallPart | ToolCallResponsePart;

export type ChatMessage = {
  /** system | user | assistant | tool (other roles are kept as given) */
  role: string;
  parts: Part[];
  finish_reason?: string;
};

/** Who made a call: the keys a sender may give (SPEC §2.4 derives the missing ones) and the process. */
export type CallOrigin = {
  call_id: string;
  session_id?: string | null;
  conversation_id?: string | null;
  turn_id?: string | null;
  agent_name?: string | null;
  pid?: number | null;
  process_name?: string | null;
  host?: string | null;
};

export type NormalizedCall = CallOrigin & {
  trace_id?: string | null;
  provider?: string | null;
  model?: string | null;
  server_address?: string | null;
  start_ns: bigint;
  end_ns?: bigint | null;
  duration_ns?: bigint | null;
  /** absent/null: no HTTP response at all */
  status_code?: number | null;
  error?: string | null;
  /** raw body of a non-2xx response */
  response_body?: string | null;
  is_sse?: boolean | null;
  sse_event_count?: number | null;
  /** the stream saw its terminal event; absent: judged from finish_reasons */
  sse_done?: boolean | null;
  cancelled?: boolean | null;
  /** set by adapters: a 2xx body that is not valid for its provider's format */
  response_invalid?: boolean | null;
  max_tokens?: number | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_tokens?: number | null;
  cache_creation_tokens?: number | null;
  finish_reasons?: string[] | null;
  system_instructions?: Part[] | null;
  input_messages: ChatMessage[];
  output_messages: ChatMessage[];
  tools?: unknown;
  /** bytes of the exchange its capture layer did not record (e.g. the proxy's 3 MiB cap per side) */
  recording_truncated?: number | null;
  /** fields the sender gave that are not part of the normalized form */
  extra?: Record<string, unknown>;
};

/** A raw captured provider exchange (SPEC §2.2), as POSTed to /api/ingest/http. */
export type HttpExchange = CallOrigin & {
  start_ns: bigint;
  end_ns?: bigint | null;
  request: { method?: string; url: string; headers?: Record<string, string>; body: unknown };
  response?: {
    status?: number | null;
    headers?: Record<string, string>;
    /** JSON body (already parsed) or text */
    body?: unknown;
    /** raw text/event-stream */
    sse?: string | null;
  } | null;
  error?: string | null;
  cancelled?: boolean | null;
  /** bytes the capture layer left out of the bodies (over its cap) */
  recording_truncated?: number | null;
};
