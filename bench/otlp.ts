// OTLP ingest benchmark: GenAI spans per second through POST /api/otlp/v1/traces on the
// production server (SQLite), in batches of 512 spans (the SDK BatchSpanProcessor's default
// export size), protobuf, one export at a time like one exporter. The spans are recorded by the
// OpenTelemetry SDK and serialized by its own OTLP protobuf serializer before the clock starts:
// chat spans with the messages as attributes (histories growing over 10-call conversations),
// one in 20 a 429, and an execute_tool span after every tool call.
// Two exports warm the server up (JIT, database pages) before the clock starts.
// --concurrency N sends N exports at a time (N agents' exporters; default 1).
// Usage: npm run bench:otlp [-- --batches 40 --gzip --concurrency 2]
import { SpanStatusCode } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import os from "node:os";
import zlib from "node:zlib";
import { startServer } from "../tests/integration/support/server";

const flag = (name: string) => process.argv.indexOf(`--${name}`);
const BATCHES = flag("batches") >= 0 ? Number(process.argv[flag("batches") + 1]) : 40;
const WARMUP = 2;
const CONCURRENCY = flag("concurrency") >= 0 ? Number(process.argv[flag("concurrency") + 1]) : 1;
const GZIP = flag("gzip") >= 0;
const BATCH = 512;

export function recordSpans(total: number): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "bench-agent", "process.pid": 4242, "host.name": "bench-host" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("bench");
  const t0 = Date.now() - 3_600_000;
  let made = 0;
  for (let conv = 0; made < total; conv++) {
    const session = `bench-session-${conv % 50}`;
    const history: object[] = [{ role: "user", parts: [{ type: "text", content: `Task ${conv}: tidy the repository and report what changed.` }] }];
    for (let turn = 0; turn < 10 && made < total; turn++) {
      const at = t0 + conv * 20_000 + turn * 1_500;
      const failed = made % 20 === 19;
      const toolId = `call_${conv}_${turn}`;
      const output = [{ role: "assistant", finish_reason: "tool_calls", parts: [{ type: "text", content: `Step ${turn}: listing files.` }, { type: "tool_call", id: toolId, name: "bash", arguments: { cmd: `ls -la dir${turn}` } }] }];
      const span = tracer.startSpan("chat gpt-4o", {
        startTime: at,
        attributes: {
          "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o", "gen_ai.response.model": "gpt-4o-2024-08-06",
          "gen_ai.response.id": `chatcmpl-${conv}-${turn}`, "gen_ai.usage.input_tokens": 800 + turn * 120, "gen_ai.usage.output_tokens": 60, "gen_ai.request.max_tokens": 4096,
          "session.id": session, "gen_ai.conversation.id": `bench-conv-${conv}`,
          "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "You are a careful coding agent. Use the tools." }]),
          "gen_ai.input.messages": JSON.stringify(history),
          ...(failed ? { "error.type": "RateLimitError", "http.response.status_code": 429 } : { "gen_ai.output.messages": JSON.stringify(output), "gen_ai.response.finish_reasons": ["tool_calls"] }),
        },
      });
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: "Rate limit reached for gpt-4o" });
      span.end(at + 900);
      made++;
      if (failed || made >= total) continue;
      const tool = tracer.startSpan("execute_tool bash", { startTime: at + 950, attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": toolId, "gen_ai.tool.call.arguments": JSON.stringify({ cmd: `ls -la dir${turn}` }), "gen_ai.tool.call.result": `file${turn}.txt\nREADME.md`, "session.id": session } });
      tool.end(at + 1_200);
      made++;
      history.push(...output, { role: "tool", parts: [{ type: "tool_call_response", id: toolId, response: `file${turn}.txt\nREADME.md` }] });
    }
  }
  return exporter.getFinishedSpans();
}

async function main() {
  const spans = recordSpans((BATCHES + WARMUP) * BATCH);
  const bodies: Uint8Array[] = [];
  for (let i = 0; i < spans.length; i += BATCH) {
    const bytes = ProtobufTraceSerializer.serializeRequest(spans.slice(i, i + BATCH))!;
    bodies.push(GZIP ? zlib.gzipSync(bytes) : bytes);
  }
  const server = await startServer();
  try {
    const post = (body: Uint8Array) =>
      fetch(`${server.url}/api/otlp/v1/traces`, {
        method: "POST", body: body as BodyInit,
        headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${server.token}`, ...(GZIP ? { "content-encoding": "gzip" } : {}) },
      });
    const check = async (res: Response) => {
      const answer = new Uint8Array(await res.arrayBuffer());
      if (res.status !== 200 || answer.length) throw new Error(`export failed: HTTP ${res.status} ${Buffer.from(answer).toString("latin1")}`);
    };
    for (const body of bodies.splice(0, WARMUP)) await check(await post(body));
    const timed = spans.length - WARMUP * BATCH;
    const started = process.hrtime.bigint();
    const queue = [...bodies];
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let body = queue.shift(); body; body = queue.shift()) await check(await post(body));
    }));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const calls = ((await (await server.api("/api/sessions/bench-session-0/calls?limit=1000")).json()) as unknown[]).length;
    const mib = bodies.reduce((n, b) => n + b.length, 0) / 2 ** 20;
    console.log(`Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}`);
    console.log(`OTLP protobuf${GZIP ? " (gzip)" : ""}: ${timed} GenAI spans in ${bodies.length} exports of ${BATCH} (${mib.toFixed(1)} MiB), ${CONCURRENCY} at a time, in ${seconds.toFixed(2)} s`);
    console.log(`${Math.round(timed / seconds)} spans/s (${(seconds / bodies.length * 1000).toFixed(0)} ms per export); session bench-session-0 has ${calls} calls; load average ${os.loadavg()[0].toFixed(1)}`);
  } finally {
    await server.stop();
  }
}

if (process.argv[1]?.endsWith("otlp.ts")) main().catch((e) => {
  console.error(e);
  process.exit(1);
});
