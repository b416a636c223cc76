// Real-shaped request payloads for integration tests.
let seq = 0;
const BASE_NS = BigInt(Date.now() - 3_600_000) * 1_000_000n;

export const ns = (offsetMs: number) => (BASE_NS + BigInt(offsetMs) * 1_000_000n).toString();

export const user = (content: string) => ({ role: "user", parts: [{ type: "text", content }] });
export const assistant = (content: string) => ({ role: "assistant", parts: [{ type: "text", content }] });
export const toolCall = (id: string, name: string, args: unknown) => ({
  role: "assistant",
  parts: [{ type: "tool_call", id, name, arguments: args }],
});
export const toolResponse = (id: string, response: unknown, isError?: boolean) => ({
  role: "tool",
  parts: [{ type: "tool_call_response", id, response, ...(isError === undefined ? {} : { is_error: isError }) }],
});

export function uid(prefix: string): string {
  seq += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${seq}`;
}

/** A successful call; override anything. Times are ms offsets from an hour ago. */
export function call(overrides: Record<string, unknown> = {}, atMs = 0) {
  return {
    call_id: uid("call"),
    session_id: "s-default",
    agent_name: "TestAgent",
    pid: 4242,
    host: "test-host",
    provider: "openai",
    model: "gpt-4o",
    start_ns: ns(atMs),
    end_ns: ns(atMs + 800),
    status_code: 200,
    max_tokens: 4096,
    input_tokens: 1200,
    output_tokens: 50,
    finish_reasons: ["stop"],
    input_messages: [user("List the files in the repo")],
    output_messages: [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "Here they are." }] }],
    ...overrides,
  };
}

export const json = (value: unknown) => JSON.stringify(value);
