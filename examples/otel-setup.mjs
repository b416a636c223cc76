// An agent's spans to SightDesk by configuration only (SPEC §2.7). Run with
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://localhost:3000/api/otlp/v1/traces \
//   OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer $(cat data/.dashboard_token)" node examples/otel-setup.mjs
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "my-agent" }), spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
const span = provider.getTracer("my-agent").startSpan("chat gpt-4o", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o", "session.id": process.env.SESSION_ID ?? "otel-example", "error.type": "RateLimitError", "http.response.status_code": 429 } });
span.setStatus({ code: 2, message: "Rate limit reached" }); // SpanStatusCode.ERROR: SightDesk files a rate_limit interruption
span.end();
await provider.shutdown(); // flushes the batch
