// Ingest sources: when data last arrived through each way in, and from which agents.
import { z } from "zod";
import { INGEST_SOURCES } from "../../domain/sources";
import { contract } from "../contract";

const tag = "ingest";

export const sourceSchema = z.object({
  source: z.enum(INGEST_SOURCES).describe("api: POST /api/ingest/calls and /events · http: /api/ingest/http · proxy: the recording proxy · otlp: /api/otlp/v1/traces · import: AgentSight import, upload and forwarder"),
  last_seen_ns: z.int().nullable().describe("when data last arrived through it (server time); null: never"),
  calls: z.int().describe("calls newly stored through it"),
  agents: z.array(z.object({ agent_name: z.string(), last_seen_ns: z.int(), calls: z.int() })).describe("the agents it delivered for, most recent first (at most 50; data naming no agent is not listed)"),
});

export const listSources = contract({
  method: "GET", path: "/api/sources", tag, scope: "read", response: z.array(sourceSchema),
  summary: "Every ingest source (in a fixed order), when data last arrived through it and from which agents.",
});
