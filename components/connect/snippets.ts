// The copy-paste setup of each way into SightDesk, for one server and one ingest token. Pure:
// unit-tested, and the same text the Connect page shows and copies.

export const TOKEN_PLACEHOLDER = "<ingest token>";
export const PROXY_LISTEN = "127.0.0.1:8788";

/** `text` as one single-quoted shell word. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export type Snippets = {
  proxy: string;
  proxyEnv: string;
  serverProxy: string;
  otlp: string;
  agentsight: string;
  agentsightForward: string;
  curl: string;
  curlExample: string;
};

/** A minimal normalized call (SPEC §2.1) to send as a test: fresh id, timed `nowMs`. */
export function testCall(nowMs: number, id: string): Record<string, unknown> {
  const start = BigInt(nowMs) * 1_000_000n;
  return {
    call_id: `connect-test-${id}`,
    agent_name: "connect-test",
    provider: "openai",
    model: "test-model",
    start_ns: `${start}`,
    end_ns: `${start + 250_000_000n}`,
    status_code: 200,
    finish_reasons: ["stop"],
    input_messages: [{ role: "user", parts: [{ type: "text", content: "Hello from the Connect page" }] }],
    output_messages: [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "Hello!" }] }],
  };
}

/** `*_ns` values as bare JSON integers (the API takes exact integers; strings hold them here). */
const callJson = (call: Record<string, unknown>) => JSON.stringify(call).replace(/"(start_ns|end_ns)":"(\d+)"/g, '"$1":$2');

export function snippets(server: string, token: string | null, call: Record<string, unknown>): Snippets {
  const t = token ?? TOKEN_PLACEHOLDER;
  const base = server.replace(/\/+$/, "");
  return {
    proxy: `npx sightdesk proxy --url ${shellQuote(base)} --token ${shellQuote(t)}`,
    proxyEnv: [
      "# OpenAI and OpenAI-compatible clients",
      `export OPENAI_BASE_URL=http://${PROXY_LISTEN}/openai/v1`,
      "# Anthropic clients",
      `export ANTHROPIC_BASE_URL=http://${PROXY_LISTEN}/anthropic`,
    ].join("\n"),
    serverProxy: [
      `export OPENAI_BASE_URL=${base}/proxy/openai/v1`,
      `# or ANTHROPIC_BASE_URL=${base}/proxy/anthropic`,
      `# and send this header with every request (it is removed before the request goes upstream):`,
      `#   X-SightDesk-Token: ${t}`,
    ].join("\n"),
    otlp: [
      `export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${base}/api/otlp/v1/traces`,
      `export OTEL_EXPORTER_OTLP_HEADERS=${shellQuote(`Authorization=Bearer ${t}`)}`,
    ].join("\n"),
    agentsight: `npx sightdesk import agentsight ~/.agentsight --follow --url ${shellQuote(base)} --token ${shellQuote(t)}`,
    agentsightForward: `npx sightdesk forward ~/.agentsight --url ${shellQuote(base)} --token ${shellQuote(t)}`,
    curl: [
      `curl -sS -X POST ${shellQuote(`${base}/api/ingest/calls`)} \\`,
      `  -H ${shellQuote(`Authorization: Bearer ${t}`)} \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d ${shellQuote(callJson(call))}`,
    ].join("\n"),
    curlExample: [
      `curl -sS -X POST ${shellQuote(`${base}/api/ingest/calls`)} \\`,
      `  -H ${shellQuote(`Authorization: Bearer ${t}`)} \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d @examples/call.json`,
    ].join("\n"),
  };
}
