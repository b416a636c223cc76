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
  method: "POST", path: "/api/ingest/http", tag, scope: "ingest", body: httpExchangeSchema, response: ingestResultSchema,
  summary: "Raw captured provider exchanges (OpenAI Chat Completions, Anthropic Messages; JSON or SSE). The recording proxy sends `X-SightDesk-Source: proxy` (shown as that source in GET /api/sources).",
});
export const ingestEvents = contract({
  method: "POST", path: "/api/ingest/events", tag, scope: "ingest", body: eventSchema,
  response: z.object({ received: z.int(), interruptions: z.int(), withdrawn: z.int() }),
  summary: "Lifecycle events: process_exit, turn_end, tool_result.",
});
