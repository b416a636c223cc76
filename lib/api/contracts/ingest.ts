import { z } from "zod";
import { contract } from "../contract";
import { callSchema, eventSchema, httpExchangeSchema } from "../../ingest/schema";
import { ingestResultSchema } from "./schemas";

const tag = "ingest";

export const ingestCalls = contract({
  method: "POST", path: "/api/ingest/calls", tag, scope: "ingest", body: callSchema, response: ingestResultSchema,
  summary: "Normalized LLM calls (SPEC §2.1), one object or an array; a batch is one transaction. An AgentSight import or forwarder sends `X-SightDesk-Source: import` (shown as that source in GET /api/sources).",
});
export const ingestHttp = contract({
  method: "POST", path: "/api/ingest/http", tag, scope: "ingest", body: httpExchangeSchema,
  response: ingestResultSchema.extend({ ignored: z.int().optional().describe("exchanges that are not model calls (a model list, embeddings, token counting) and succeeded: not stored") }),
  summary: "Raw captured provider exchanges (OpenAI Chat Completions and Responses, Anthropic Messages; JSON or SSE); other endpoints' exchanges are stored only when they failed. The recording proxy sends `X-SightDesk-Source: proxy` (shown as that source in GET /api/sources).",
});
export const ingestEvents = contract({
  method: "POST", path: "/api/ingest/events", tag, scope: "ingest", body: eventSchema,
  response: z.object({ received: z.int(), interruptions: z.int(), withdrawn: z.int() }),
  summary: "Lifecycle events: process_exit, turn_end, tool_result.",
});
