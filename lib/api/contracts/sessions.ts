import { z } from "zod";
import { contract } from "../contract";
import { boolParam, csv, limitParam, MAX_LIMIT, nsParam, timeKeyParam } from "./params";

const tag = "sessions";
const ns = z.int();
const openCounts = z.object({
  total: z.int(),
  by_severity: z.record(z.string(), z.int()),
  types: z.array(z.object({ interruption_type: z.string(), severity: z.string(), count: z.int() })),
});
const sessionSchema = z.object({
  session_id: z.string(), agent_name: z.string().nullable(), pid: z.int().nullable(), host: z.string().nullable(),
  process_name: z.string().nullable(), first_seen_ns: ns, last_seen_ns: ns, call_count: z.int(), conversation_count: z.int(),
  input_tokens: z.int(), output_tokens: z.int(), model: z.string().nullable(), exited_at_ns: ns.nullable(),
  exit_code: z.int().nullable(), exit_signal: z.string().nullable(), oom: z.boolean().nullable(), open_interruptions: openCounts,
});
const callSchema = z.object({
  call_id: z.string(), conversation_id: z.string().nullable(), turn_id: z.string().nullable(), model: z.string().nullable(),
  start_ns: ns, end_ns: ns.nullable(), duration_ns: ns.nullable(), status_code: z.int().nullable(), error: z.string().nullable(),
  input_tokens: z.int().nullable(), output_tokens: z.int().nullable(), finish_reasons: z.array(z.string()),
  recording_truncated: z.int().nullable().describe("bytes its capture layer did not record (the recording proxy's 3 MiB cap per side); null when recorded whole"),
  interruptions: z.array(z.object({ interruption_id: z.string(), interruption_type: z.string(), severity: z.string(), status: z.string() })),
}).loose();

export const listSessions = contract({
  method: "GET", path: "/api/sessions", tag, scope: "read",
  query: z.object({
    agent_name: csv.optional(),
    session_id: csv.optional().describe(`only these sessions, comma-separated (at most ${MAX_LIMIT})`),
    with_open: boolParam.optional().describe("only sessions with unresolved interruptions"),
    start_ns: nsParam.optional(), end_ns: nsParam.optional(),
    limit: limitParam.optional(), cursor: z.string().min(1).optional(),
  }),
  response: z.array(sessionSchema),
  summary: "Sessions, most recently active first, with their open interruption counts (Link rel=\"next\" pages on).",
});
export const getSession = contract({
  method: "GET", path: "/api/sessions/{id}", tag, scope: "read",
  response: sessionSchema.extend({ conversations: z.array(z.object({}).loose()) }),
  summary: "A session with its conversations and turns.",
});
export const sessionCalls = contract({
  method: "GET", path: "/api/sessions/{id}/calls", tag, scope: "read",
  query: z.object({
    conversation_id: z.string().min(1).optional(),
    limit: limitParam.optional(),
    after: timeKeyParam("<start_ns>.<call_id>", true).transform((a) => ({ afterNs: a.ns, afterId: a.key })).optional(),
  }),
  response: z.array(callSchema),
  summary: "A session's calls in time order with interruption markers; a Link rel=\"next\" header continues past `limit` (`after`: from the last call of a page).",
});
export const getCall = contract({
  method: "GET", path: "/api/calls/{id}", tag, scope: "read",
  response: callSchema.extend({ input_messages: z.array(z.unknown()), output_messages: z.array(z.unknown()), tool_balance: z.unknown() }),
  summary: "One call with its messages, tool-call balance (with safe cut points) and interruptions.",
});

export const listAgents = contract({
  method: "GET", path: "/api/agents", tag, scope: "read",
  response: z.array(z.object({ agent_name: z.string(), first_seen_ns: ns, last_seen_ns: ns })),
  summary: "Every agent that has sent calls, by name.",
});
