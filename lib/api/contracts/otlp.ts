import { z } from "zod";
import { contract } from "../contract";

/** OTLP/JSON ExportTraceServiceRequest, loosely (the protobuf form has the same fields). */
const exportTraceRequest = z.looseObject({
  resourceSpans: z.array(z.looseObject({ resource: z.looseObject({}).optional(), scopeSpans: z.array(z.looseObject({ spans: z.array(z.looseObject({})).optional() })).optional() })).optional(),
});

export const otlpTraces = contract({
  method: "POST", path: "/api/otlp/v1/traces", tag: "ingest", scope: "ingest", bodyType: "otlp", body: exportTraceRequest,
  response: z.object({ partialSuccess: z.object({ rejectedSpans: z.string(), errorMessage: z.string() }).optional() }),
  summary:
    "OpenTelemetry traces (OTLP/HTTP, SPEC §2.7): application/x-protobuf or application/json, optional Content-Encoding: gzip. " +
    "GenAI and OpenInference LLM spans become calls, execute_tool spans tool results; other spans are ignored. " +
    "The answer is an ExportTraceServiceResponse in the request's encoding; partialSuccess counts GenAI spans that could not be used.",
});
