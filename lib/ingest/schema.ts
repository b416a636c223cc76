// zod schemas for the ingest routes (SPEC §2.1–2.3). They validate what senders POST and
// produce the normalized types the store and the detectors work on.
import { z } from "zod";
import { MAX_INT, MIN_INT, type ChatMessage, type HttpExchange, type NormalizedCall, type Part } from "../domain/calls";
import { MAX_NS } from "../domain/time";
import { MAX_TOOL_REF_CHARS } from "../detect/toolBalance";

/** Integer nanoseconds: a JSON integer, or a string of digits (exact beyond 2^53). */
export const nsSchema = z
  .union([z.bigint(), z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/, "expected integer nanoseconds")])
  .transform((v) => BigInt(v))
  .refine((v) => v <= MAX_NS, "expected integer nanoseconds below 2^63");

const optionalNs = nsSchema.nullish();
const optionalText = z.string().max(1_000_000).nullish();
const optionalId = z.string().min(1).max(512).nullish();
const count = z.number().int().nonnegative().max(MAX_INT).nullish();
/** Bytes a capture layer left out: any count is accepted, stored at most MAX_INT (an Int column). */
const bytesLeftOut = z.number().int().nonnegative().transform((n) => Math.min(n, MAX_INT)).nullish();
/** A pid or an exit code: an integer that fits an Int column. */
const int = z.number().int().min(MIN_INT).max(MAX_INT);

const toolCallId = z.string().min(1).max(MAX_TOOL_REF_CHARS);

const partSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), content: z.string() }),
  z.object({ type: z.literal("reasoning"), content: z.string() }),
  z.object({ type: z.literal("tool_call"), id: toolCallId, name: z.string().max(MAX_TOOL_REF_CHARS), arguments: z.unknown() }),
  z.object({
    type: z.literal("tool_call_response"),
    id: toolCallId,
    response: z.unknown(),
    is_error: z.boolean().optional(),
  }),
]) as z.ZodType<Part>;

const messageSchema: z.ZodType<ChatMessage> = z.object({
  role: z.string().min(1),
  parts: z.array(partSchema),
  finish_reason: z.string().optional(),
});

/** Which agent process, session, conversation and turn a call belongs to (all optional). */
const whoAndWhere = {
  session_id: optionalId,
  conversation_id: optionalId,
  turn_id: optionalId,
  agent_name: z.string().max(256).nullish(),
  pid: int.nullish(),
  process_name: z.string().max(256).nullish(),
  host: z.string().max(256).nullish(),
};

const callFields = {
  call_id: z.string().min(1).max(512),
  trace_id: optionalId,
  ...whoAndWhere,
  provider: z.string().max(128).nullish(),
  model: z.string().max(256).nullish(),
  server_address: z.string().max(512).nullish(),
  start_ns: nsSchema.optional(),
  end_ns: optionalNs,
  duration_ns: optionalNs,
  status_code: z.number().int().min(100).max(599).nullish(),
  error: optionalText,
  response_body: optionalText,
  is_sse: z.boolean().nullish(),
  sse_event_count: count,
  sse_done: z.boolean().nullish(),
  cancelled: z.boolean().nullish(),
  response_invalid: z.boolean().nullish(),
  max_tokens: count,
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_creation_tokens: count,
  finish_reasons: z.array(z.string()).nullish(),
  system_instructions: z.array(partSchema).nullish(),
  input_messages: z.array(messageSchema).default([]),
  output_messages: z.array(messageSchema).default([]),
  tools: z.unknown().optional(),
  recording_truncated: bytesLeftOut,
};

const KNOWN_CALL_FIELDS = new Set(Object.keys(callFields));

export const callSchema: z.ZodType<NormalizedCall, unknown> = z
  .looseObject(callFields)
  .superRefine((c, ctx) => {
    if (c.start_ns === undefined && (c.end_ns == null || c.duration_ns == null)) {
      ctx.addIssue({ code: "custom", path: ["start_ns"], message: "required (or end_ns and duration_ns)" });
    }
  })
  .transform((c) => {
    const extra: Record<string, unknown> = {};
    const known: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) (KNOWN_CALL_FIELDS.has(k) ? known : extra)[k] = v;
    const call = known as unknown as NormalizedCall & { start_ns?: bigint };
    const start = call.start_ns ?? (call.end_ns as bigint) - (call.duration_ns as bigint);
    return { ...call, start_ns: start, extra } satisfies NormalizedCall;
  });

const headers = z.record(z.string(), z.union([z.string(), z.array(z.string())]).transform(String)).optional();

export const httpExchangeSchema: z.ZodType<HttpExchange, unknown> = z.object({
  call_id: z.string().min(1).max(512),
  ...whoAndWhere,
  start_ns: nsSchema,
  end_ns: optionalNs,
  request: z.object({ method: z.string().optional(), url: z.string().min(1), headers, body: z.unknown() }),
  response: z
    .object({
      status: z.number().int().min(100).max(599).nullish(),
      headers,
      body: z.unknown().optional(),
      sse: z.string().nullish(),
    })
    .nullish(),
  error: optionalText,
  cancelled: z.boolean().nullish(),
  recording_truncated: bytesLeftOut,
});

export const TURN_END_REASONS = ["completed", "steered", "drained", "dispatched", "awaiting", "failed", "cancelled"] as const;

const processExit = z.object({
  kind: z.literal("process_exit"),
  pid: int,
  agent_name: z.string().min(1).max(256),
  host: z.string().max(256).nullish(),
  session_id: optionalId,
  at_ns: nsSchema,
  exit_code: int.nullish(),
  signal: z.union([z.string().max(32), z.number().int()]).nullish(),
  oom: z.boolean().nullish(),
});

const turnEnd = z.object({
  kind: z.literal("turn_end"),
  session_id: z.string().min(1).max(512),
  conversation_id: optionalId,
  turn_id: z.string().min(1).max(512),
  reason: z.enum(TURN_END_REASONS),
  at_ns: nsSchema,
  final_event_id: optionalId,
});

const toolResult = z.object({
  kind: z.literal("tool_result"),
  session_id: z.string().min(1).max(512),
  conversation_id: optionalId,
  call_id: optionalId,
  tool_call_id: z.string().min(1).max(512),
  name: z.string().max(256),
  arguments: z.unknown().optional(),
  success: z.boolean(),
  error: optionalText,
  response: z.unknown().optional(),
  duration_ns: optionalNs,
  at_ns: nsSchema,
});

export const eventSchema = z.discriminatedUnion("kind", [processExit, turnEnd, toolResult]);
export type LifecycleEvent = z.infer<typeof eventSchema>;
export type ProcessExitEvent = z.infer<typeof processExit>;
export type TurnEndEvent = z.infer<typeof turnEnd>;
export type ToolResultEvent = z.infer<typeof toolResult>;
