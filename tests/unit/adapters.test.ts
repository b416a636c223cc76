import { describe, expect, it } from "vitest";
import type { HttpExchange, NormalizedCall } from "@/lib/domain/calls";
import { isModelCall, normalizeExchange } from "@/lib/ingest/adapters";
import { parseSse } from "@/lib/ingest/adapters/sse";
import { toolBalance } from "@/lib/detect/toolBalance";

const START = 1767268800000000000n;
const END = 1767268801500000000n;

const OPENAI_URL = "https://api.openai.com/v1/chat/completions";
const ANTHROPIC_URL = "https://api.anthropic.com/v1/messages";

function exchange(url: string, requestBody: unknown, response: HttpExchange["response"], extra: Partial<HttpExchange> = {}): HttpExchange {
  return {
    call_id: "c-0001",
    session_id: "sess-1",
    agent_name: "CoshNG",
    pid: 10000,
    host: "web-3",
    start_ns: START,
    end_ns: END,
    request: {
      method: "POST",
      url,
      headers: { authorization: "Bearer sk-proj-SECRET", "x-api-key": "sk-ant-SECRET", "content-type": "application/json" },
      body: requestBody,
    },
    response,
    ...extra,
  };
}

/** OpenAI-style stream: every chunk as `data: …` followed by a blank line. */
const dataStream = (chunks: unknown[], done = true) =>
  chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");

/** Anthropic-style stream: `event: <type>` plus its data. */
const eventStream = (events: Array<{ type: string }>) =>
  events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

const serialize = (c: NormalizedCall) => JSON.stringify(c, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));

describe("parseSse", () => {
  it("handles CRLF, multi-line data, comments, event names and a final event without a blank line", () => {
    const raw = ": keep-alive\r\nevent: message_start\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: second\n\n:comment\n\nevent: ping\nid: 7\n\ndata:no-space\ndata: last";
    expect(parseSse(raw)).toEqual([
      { event: "message_start", data: '{"a":\n1}' },
      { data: "second" },
      { data: "no-space\nlast" },
    ]);
  });

  it("returns no events for an empty stream", () => {
    expect(parseSse("")).toEqual([]);
    expect(parseSse("\n\n: ping\n\n")).toEqual([]);
  });
});

describe("OpenAI Chat Completions", () => {
  const tools = [
    {
      type: "function",
      function: {
        name: "bash",
        description: "Run a shell command",
        parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] },
      },
    },
  ];
  const request = {
    model: "gpt-4o",
    messages: [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: [{ type: "text", text: "List the files in /tmp" }] },
    ],
    tools,
    tool_choice: "auto",
    max_completion_tokens: 1024,
  };

  it("normalizes a JSON response with tool_calls", () => {
    const body = {
      id: "chatcmpl-AZ3kq9fD2JXwqP0d9Y8Wl3r1s2t3u",
      object: "chat.completion",
      created: 1733000000,
      model: "gpt-4o-2024-08-06",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_9Kx2mVt0aQeZ1", type: "function", function: { name: "bash", arguments: '{"cmd":"ls /tmp"}' } }],
            refusal: null,
          },
          logprobs: null,
          finish_reason: "tool_calls",
        },
      ],
      usage: {
        prompt_tokens: 82,
        completion_tokens: 17,
        total_tokens: 99,
        prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      system_fingerprint: "fp_7f6be3efb0",
    };
    const call = normalizeExchange(
      exchange(OPENAI_URL, request, { status: 200, headers: { "set-cookie": "__cf_bm=SECRET" }, body }, { process_name: "node", cancelled: false }),
    );
    expect(call).toEqual({
      call_id: "c-0001",
      trace_id: "chatcmpl-AZ3kq9fD2JXwqP0d9Y8Wl3r1s2t3u",
      session_id: "sess-1",
      conversation_id: null,
      turn_id: null,
      agent_name: "CoshNG",
      pid: 10000,
      process_name: "node",
      host: "web-3",
      provider: "openai",
      model: "gpt-4o-2024-08-06",
      server_address: "api.openai.com",
      start_ns: START,
      end_ns: END,
      duration_ns: 1500000000n,
      status_code: 200,
      error: null,
      response_body: null,
      is_sse: false,
      sse_event_count: null,
      sse_done: null,
      cancelled: false,
      response_invalid: false,
      recording_truncated: null,
      max_tokens: 1024,
      input_tokens: 82,
      output_tokens: 17,
      cache_read_tokens: 64,
      cache_creation_tokens: null,
      finish_reasons: ["tool_calls"],
      system_instructions: [{ type: "text", content: "You are a coding agent." }],
      input_messages: [{ role: "user", parts: [{ type: "text", content: "List the files in /tmp" }] }],
      output_messages: [
        {
          role: "assistant",
          finish_reason: "tool_calls",
          parts: [{ type: "tool_call", id: "call_9Kx2mVt0aQeZ1", name: "bash", arguments: { cmd: "ls /tmp" } }],
        },
      ],
      tools,
    });
    expect(serialize(call)).not.toMatch(/SECRET|authorization|x-api-key|set-cookie/i);
  });

  it("normalizes request history: tool calls, tool results, developer messages, reasoning, unparsable arguments", () => {
    const history = {
      model: "deepseek-reasoner",
      max_tokens: 8192,
      messages: [
        { role: "developer", content: [{ type: "text", text: "Be terse." }] },
        { role: "user", content: "What is in config.json?" },
        {
          role: "assistant",
          content: "",
          reasoning_content: "I should read the file.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"config.json"}' } },
            { id: "call_2", type: "function", function: { name: "bash", arguments: '{"cmd": "cat config' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"port": 8080}' },
        { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "cat: config: No such file" }] },
      ],
      stream: false,
    };
    // Capture layers may send the body as JSON text.
    const call = normalizeExchange(exchange("https://api.deepseek.com/chat/completions", JSON.stringify(history), null));
    expect(call.provider).toBe("deepseek");
    expect(call.model).toBe("deepseek-reasoner");
    expect(call.max_tokens).toBe(8192);
    expect(call.status_code).toBeNull();
    expect(call.system_instructions).toEqual([{ type: "text", content: "Be terse." }]);
    expect(call.input_messages).toEqual([
      { role: "user", parts: [{ type: "text", content: "What is in config.json?" }] },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "I should read the file." },
          { type: "tool_call", id: "call_1", name: "read_file", arguments: { path: "config.json" } },
          { type: "tool_call", id: "call_2", name: "bash", arguments: '{"cmd": "cat config' },
        ],
      },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: '{"port": 8080}' }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_2", response: "cat: config: No such file" }] },
    ]);
  });

  const chunk = (choices: unknown[], usage: unknown = null) => ({
    id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    object: "chat.completion.chunk",
    created: 1741569952,
    model: "gpt-4o-mini-2024-07-18",
    service_tier: "default",
    system_fingerprint: "fp_06737a9306",
    choices,
    usage,
  });
  const textChunks = [
    chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: "Hello" }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: " there!" }, logprobs: null, finish_reason: null }]),
  ];
  const finishChunk = chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]);
  const usageChunk = chunk([], {
    prompt_tokens: 12,
    completion_tokens: 3,
    total_tokens: 15,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  });
  const streamRequest = { model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Say hello" }] };

  it("assembles an SSE stream that ends with [DONE]", () => {
    const sse = dataStream([...textChunks, finishChunk, usageChunk]);
    const call = normalizeExchange(exchange(OPENAI_URL, streamRequest, { status: 200, headers: { "content-type": "text/event-stream" }, sse }));
    expect(call).toMatchObject({
      trace_id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
      model: "gpt-4o-mini-2024-07-18",
      status_code: 200,
      is_sse: true,
      sse_event_count: 6,
      sse_done: true,
      error: null,
      response_invalid: false,
      input_tokens: 12,
      output_tokens: 3,
      cache_read_tokens: 0,
      finish_reasons: ["stop"],
      output_messages: [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "Hello there!" }] }],
    });
  });

  it("marks a stream cut before finish_reason and [DONE] as not done", () => {
    const sse = dataStream(textChunks, false);
    const call = normalizeExchange(exchange(OPENAI_URL, streamRequest, { status: 200, sse }));
    expect(call).toMatchObject({
      is_sse: true,
      sse_event_count: 3,
      sse_done: false,
      finish_reasons: [],
      input_tokens: null,
      output_tokens: null,
      output_messages: [{ role: "assistant", parts: [{ type: "text", content: "Hello there!" }] }],
    });
    expect(call.output_messages[0]).not.toHaveProperty("finish_reason");
  });

  it("takes a stream whose every choice finished as done, without [DONE] (some compatible servers never send it)", () => {
    const finished = chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]);
    const call = normalizeExchange(exchange(OPENAI_URL, streamRequest, { status: 200, sse: dataStream([...textChunks, finished], false) }));
    expect(call).toMatchObject({ sse_done: true, finish_reasons: ["stop"] });
    // one of two choices finished: not done
    const twoChoices = dataStream([...textChunks, chunk([{ index: 1, delta: { content: "b" }, logprobs: null, finish_reason: null }]), finished], false);
    expect(normalizeExchange(exchange(OPENAI_URL, streamRequest, { status: 200, sse: twoChoices })).sse_done).toBe(false);
  });

  it("assembles streamed tool call argument fragments by index", () => {
    const tc = (index: number, fn: Record<string, string>, id?: string) => ({
      index,
      ...(id ? { id, type: "function" } : {}),
      function: fn,
    });
    const delta = (tool_calls: unknown[], extra: Record<string, unknown> = {}) =>
      chunk([{ index: 0, delta: { ...extra, tool_calls }, logprobs: null, finish_reason: null }]);
    const sse = dataStream([
      delta([tc(0, { name: "get_weather", arguments: "" }, "call_DdmO9pD3xa9XTPNJ32zg2hcA")], { role: "assistant", content: null }),
      delta([tc(0, { arguments: '{"lo' })]),
      delta([tc(0, { arguments: 'cation": "Pa' })]),
      delta([tc(0, { arguments: 'ris, France"}' })]),
      delta([tc(1, { name: "get_time", arguments: "" }, "call_2Qr8x")]),
      delta([tc(1, { arguments: '{"tz": "Europe/Paris"}' })]),
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }]),
    ]);
    const call = normalizeExchange(exchange(OPENAI_URL, streamRequest, { status: 200, sse }));
    expect(call.sse_done).toBe(true);
    expect(call.finish_reasons).toEqual(["tool_calls"]);
    expect(call.output_messages).toEqual([
      {
        role: "assistant",
        finish_reason: "tool_calls",
        parts: [
          { type: "tool_call", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", arguments: { location: "Paris, France" } },
          { type: "tool_call", id: "call_2Qr8x", name: "get_time", arguments: { tz: "Europe/Paris" } },
        ],
      },
    ]);
  });

  it("accumulates reasoning_content and reports an error chunk inside the stream", () => {
    const ds = (delta: Record<string, unknown>) => ({
      id: "0193bd4d-6f4c-7c5b-b1f5-2f3b2f1c9a11",
      object: "chat.completion.chunk",
      created: 1737000000,
      model: "deepseek-reasoner",
      system_fingerprint: "fp_7e73fd9a08",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    });
    const sse =
      dataStream([ds({ role: "assistant", content: null, reasoning_content: "" }), ds({ content: null, reasoning_content: "Let me think" })], false) +
      ": keep-alive\n\n" +
      'data: {"error":{"message":"Internal server error","type":"server_error","param":null,"code":null}}\n\n';
    const call = normalizeExchange(exchange("https://api.deepseek.com/chat/completions", streamRequest, { status: 200, sse }));
    expect(call).toMatchObject({
      provider: "deepseek",
      sse_done: false,
      sse_event_count: 3,
      error: "server_error: Internal server error",
      output_messages: [{ role: "assistant", parts: [{ type: "reasoning", content: "Let me think" }] }],
    });
  });

  it("reads a 429 insufficient_quota error and keeps the raw body text", () => {
    const raw = `{
    "error": {
        "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        "type": "insufficient_quota",
        "param": null,
        "code": "insufficient_quota"
    }
}
`;
    const call = normalizeExchange(exchange(OPENAI_URL, request, { status: 429, headers: { "content-type": "application/json" }, body: raw }));
    expect(call).toMatchObject({
      status_code: 429,
      error:
        "insufficient_quota: You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
      response_body: raw,
      response_invalid: false,
      trace_id: null,
      model: "gpt-4o",
      output_messages: [],
      finish_reasons: [],
    });
  });

  it("reads an Azure 400 content_filter error (body given parsed)", () => {
    const body = {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
        type: null,
        param: "prompt",
        code: "content_filter",
        status: 400,
        innererror: {
          code: "ResponsibleAIPolicyViolation",
          content_filter_result: {
            hate: { filtered: false, severity: "safe" },
            jailbreak: { filtered: false, detected: false },
            self_harm: { filtered: false, severity: "safe" },
            sexual: { filtered: false, severity: "safe" },
            violence: { filtered: true, severity: "medium" },
          },
        },
      },
    };
    const { model: _omitted, ...azureRequest } = request; // Azure names the deployment in the URL
    const url = "https://contoso-eastus.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21";
    const call = normalizeExchange(exchange(url, azureRequest, { status: 400, body }));
    expect(call).toMatchObject({
      provider: "openai-compatible",
      server_address: "contoso-eastus.openai.azure.com",
      model: null,
      status_code: 400,
      error: `content_filter: ${body.error.message}`,
      response_body: JSON.stringify(body),
    });
  });

  it("flags a 200 response whose body is an HTML page as invalid", () => {
    const html =
      '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body><div id="challenge-running">Checking your browser</div></body></html>';
    const call = normalizeExchange(exchange(OPENAI_URL, request, { status: 200, headers: { "content-type": "text/html; charset=UTF-8" }, body: html }));
    expect(call).toMatchObject({
      status_code: 200,
      response_invalid: true,
      response_body: null,
      error: null,
      is_sse: false,
      output_messages: [],
      finish_reasons: [],
    });
  });

  it("flags a 200 JSON body without choices as invalid and keeps its error text", () => {
    const body = { error: { message: "upstream timed out", type: "gateway_timeout", code: 504 } };
    const call = normalizeExchange(exchange("http://vllm.internal:8000/v1/chat/completions", request, { status: 200, body }));
    expect(call).toMatchObject({ provider: "openai-compatible", server_address: "vllm.internal", response_invalid: true, error: "504 (gateway_timeout): upstream timed out" });
  });

  it("routes DashScope's compatible mode through the OpenAI adapter", () => {
    const body = {
      choices: [{ message: { role: "assistant", content: "我是通义千问，由阿里云开发的AI助手。" }, finish_reason: "stop", index: 0, logprobs: null }],
      object: "chat.completion",
      usage: { prompt_tokens: 22, completion_tokens: 16, total_tokens: 38, prompt_tokens_details: { cached_tokens: 0 } },
      created: 1735120033,
      system_fingerprint: null,
      model: "qwen-plus",
      id: "chatcmpl-6ada9ed2-7f33-9de2-8bb0-78bd4035025a",
    };
    const call = normalizeExchange(
      exchange("https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", { model: "qwen-plus", messages: [{ role: "user", content: "你是谁？" }] }, { status: 200, body: JSON.stringify(body) }),
    );
    expect(call).toMatchObject({
      provider: "dashscope",
      server_address: "dashscope.aliyuncs.com",
      model: "qwen-plus",
      trace_id: "chatcmpl-6ada9ed2-7f33-9de2-8bb0-78bd4035025a",
      input_tokens: 22,
      output_tokens: 16,
      finish_reasons: ["stop"],
      input_messages: [{ role: "user", parts: [{ type: "text", content: "你是谁？" }] }],
      output_messages: [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "我是通义千问，由阿里云开发的AI助手。" }] }],
    });
  });

  it("pairs tool calls sent with an empty id by order (Gemini's OpenAI endpoint, LM Studio, llama.cpp): no duplicate, dangling or orphan", () => {
    const toolCall = (args: string) => ({ id: "", type: "function", function: { name: "bash", arguments: args } });
    const history = [
      { role: "user", content: "list and count" },
      { role: "assistant", content: null, tool_calls: [toolCall('{"cmd":"ls"}'), toolCall('{"cmd":"wc"}')] },
      { role: "tool", tool_call_id: "", content: "a b" },
      { role: "tool", tool_call_id: "", content: "2" },
      { role: "assistant", content: null, tool_calls: [toolCall('{"cmd":"ls"}')] },
      { role: "tool", tool_call_id: "", content: "a b" },
    ];
    const body = { id: "x", model: "m", choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [toolCall('{"cmd":"ls"}')] }, finish_reason: "tool_calls" }] };
    const call = normalizeExchange(exchange(OPENAI_URL, { model: "m", messages: history }, { status: 200, body: JSON.stringify(body) }));
    const balance = toolBalance(call.input_messages);
    expect(balance).toMatchObject({ dangling: [], orphan: [], duplicate: [] });
    const ids = call.input_messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "tool_call" || p.type === "tool_call_response" ? [p.id] : [])));
    expect(ids.every((id) => id.startsWith("call_"))).toBe(true);
    expect(ids[2]).toBe(ids[0]); // the first result answers the first call
    // the same history sent again (the next call of the conversation) gives its calls the same ids
    const again = normalizeExchange(exchange(OPENAI_URL, { model: "m", messages: history }, { status: 200, body: JSON.stringify(body) }));
    expect(again.input_messages).toEqual(call.input_messages);
  });

  it("a success whose answer was not recorded (a capture layer keeping status and timing only) has no status: an unknown answer is no empty one", () => {
    const call = normalizeExchange(exchange(OPENAI_URL, { model: "m", messages: [{ role: "user", content: "hi" }] }, { status: 200, headers: { "content-type": "application/json" } }));
    expect(call).toMatchObject({ status_code: null, error: null, output_messages: [] });
    // a failure keeps its status (it says what happened), and so does an answer the proxy cut at its cap (it says so)
    expect(normalizeExchange(exchange(OPENAI_URL, { model: "m", messages: [] }, { status: 429 })).status_code).toBe(429);
    expect(normalizeExchange(exchange(OPENAI_URL, { model: "m", messages: [] }, { status: 200, body: null }, { recording_truncated: 5_000_000 })).status_code).toBe(200);
  });

  it("keeps the client's error when there is no response at all", () => {
    const call = normalizeExchange(exchange(OPENAI_URL, request, undefined, { error: "fetch failed: ETIMEDOUT", end_ns: undefined }));
    expect(call).toMatchObject({ status_code: null, error: "fetch failed: ETIMEDOUT", is_sse: false, end_ns: null, duration_ns: null });
  });
});

describe("Anthropic Messages", () => {
  const tools = [
    {
      name: "get_weather",
      description: "Get the current weather in a given location",
      input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
    },
  ];
  const request = {
    model: "claude-sonnet-4-5",
    max_tokens: 16000,
    thinking: { type: "enabled", budget_tokens: 10000 },
    system: [{ type: "text", text: "You are a careful agent.", cache_control: { type: "ephemeral" } }],
    tools,
    messages: [{ role: "user", content: "What's the weather in Paris?" }],
  };

  it("normalizes a JSON response with thinking and tool_use", () => {
    const body = {
      id: "msg_01Aq9w938a90dw8q",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [
        { type: "thinking", thinking: "The user wants the weather in Paris. I should call get_weather.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" },
        { type: "text", text: "Let me check the weather." },
        { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "Paris, France" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 412, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 98, service_tier: "standard" },
    };
    const call = normalizeExchange(exchange(ANTHROPIC_URL, request, { status: 200, headers: { "request-id": "req_1" }, body }));
    expect(call).toEqual({
      call_id: "c-0001",
      trace_id: "msg_01Aq9w938a90dw8q",
      session_id: "sess-1",
      conversation_id: null,
      turn_id: null,
      agent_name: "CoshNG",
      pid: 10000,
      process_name: null,
      host: "web-3",
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      server_address: "api.anthropic.com",
      start_ns: START,
      end_ns: END,
      duration_ns: 1500000000n,
      status_code: 200,
      error: null,
      response_body: null,
      is_sse: false,
      sse_event_count: null,
      sse_done: null,
      cancelled: null,
      response_invalid: false,
      recording_truncated: null,
      max_tokens: 16000,
      input_tokens: 412,
      output_tokens: 98,
      cache_read_tokens: 1024,
      cache_creation_tokens: 0,
      finish_reasons: ["tool_use"],
      system_instructions: [{ type: "text", content: "You are a careful agent." }],
      input_messages: [{ role: "user", parts: [{ type: "text", content: "What's the weather in Paris?" }] }],
      output_messages: [
        {
          role: "assistant",
          finish_reason: "tool_use",
          parts: [
            { type: "reasoning", content: "The user wants the weather in Paris. I should call get_weather." },
            { type: "text", content: "Let me check the weather." },
            { type: "tool_call", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", arguments: { location: "Paris, France" } },
          ],
        },
      ],
      tools,
    });
    expect(serialize(call)).not.toMatch(/SECRET/);
  });

  it("leaves out a server tool call sent back without its result (pause_turn, or beside a client tool): no dangling call", () => {
    const history = [
      { role: "user", content: "weather in Oslo, then save it" },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "Oslo weather" } },
          { type: "tool_use", id: "toolu_1", name: "save", input: { text: "?" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "saved" }] },
      // a search with its result beside it stays, as the call and result it was
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_2", name: "web_search", input: { query: "Oslo" } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: [] },
          { type: "text", text: "Rain." },
        ],
      },
      { role: "user", content: "thanks" },
    ];
    const call = normalizeExchange(exchange(ANTHROPIC_URL, { model: "claude-sonnet-4-5", max_tokens: 100, messages: history }, { status: 200, body: JSON.stringify({ id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } }) }));
    expect(toolBalance(call.input_messages)).toMatchObject({ dangling: [], orphan: [], duplicate: [] });
    const ids = call.input_messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "tool_call" ? [p.id] : [])));
    expect(ids).toEqual(["toolu_1", "srvtoolu_2"]);
    // in an answer it stays: a turn paused mid-search said that much (not an empty response)
    const paused = normalizeExchange(exchange(ANTHROPIC_URL, { model: "claude-sonnet-4-5", max_tokens: 100, messages: history.slice(0, 1) }, { status: 200, body: JSON.stringify({ id: "msg_2", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "server_tool_use", id: "srvtoolu_3", name: "web_search", input: { query: "Oslo" } }], stop_reason: "pause_turn", usage: { input_tokens: 1, output_tokens: 1 } }) }));
    expect(paused.output_messages[0].parts).toEqual([{ type: "tool_call", id: "srvtoolu_3", name: "web_search", arguments: { query: "Oslo" } }]);
  });

  it("splits tool_result blocks into a tool message before the user's text, keeping is_error", () => {
    const history = {
      model: "claude-opus-4-1",
      max_tokens: 4096,
      system: "You are a build assistant.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Delete the build dir" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "I'll remove it." },
            { type: "tool_use", id: "toolu_01", name: "bash", input: { command: "rm -rf build" } },
            { type: "tool_use", id: "toolu_02", name: "bash", input: { command: "ls" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "rm: cannot remove 'build': Permission denied" }], is_error: true },
            { type: "tool_result", tool_use_id: "toolu_02", content: "build\nsrc", is_error: false },
            { type: "text", text: "Try with sudo?" },
          ],
        },
      ],
    };
    const call = normalizeExchange(exchange(ANTHROPIC_URL, history, null, { error: "socket hang up" }));
    expect(call.system_instructions).toEqual([{ type: "text", content: "You are a build assistant." }]);
    expect(call.input_messages).toEqual([
      { role: "user", parts: [{ type: "text", content: "Delete the build dir" }] },
      {
        role: "assistant",
        parts: [
          { type: "text", content: "I'll remove it." },
          { type: "tool_call", id: "toolu_01", name: "bash", arguments: { command: "rm -rf build" } },
          { type: "tool_call", id: "toolu_02", name: "bash", arguments: { command: "ls" } },
        ],
      },
      {
        role: "tool",
        parts: [
          { type: "tool_call_response", id: "toolu_01", response: "rm: cannot remove 'build': Permission denied", is_error: true },
          { type: "tool_call_response", id: "toolu_02", response: "build\nsrc" },
        ],
      },
      { role: "user", parts: [{ type: "text", content: "Try with sudo?" }] },
    ]);
    expect(call).toMatchObject({ status_code: null, error: "socket hang up", model: "claude-opus-4-1", max_tokens: 4096, output_messages: [] });
  });

  const messageStart = {
    type: "message_start",
    message: {
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 25, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    },
  };
  const textDelta = (text: string) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
  const streamedText = [
    messageStart,
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "ping" },
    textDelta("Once upon"),
    textDelta(" a time"),
  ];

  it("assembles an SSE stream ending in message_stop with stop_reason max_tokens", () => {
    const sse = eventStream([
      ...streamedText,
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "max_tokens", stop_sequence: null }, usage: { output_tokens: 16 } },
      { type: "message_stop" },
    ] as Array<{ type: string }>);
    const call = normalizeExchange(exchange(ANTHROPIC_URL, { ...request, max_tokens: 16, stream: true }, { status: 200, sse }));
    expect(call).toMatchObject({
      trace_id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      model: "claude-sonnet-4-5-20250929",
      is_sse: true,
      sse_event_count: 8,
      sse_done: true,
      max_tokens: 16,
      input_tokens: 25,
      output_tokens: 16,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
      finish_reasons: ["max_tokens"],
      error: null,
      output_messages: [{ role: "assistant", finish_reason: "max_tokens", parts: [{ type: "text", content: "Once upon a time" }] }],
    });
  });

  it("assembles streamed thinking and tool_use input_json_delta fragments", () => {
    const sse = eventStream([
      messageStart,
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "I need the weather " } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "for Paris." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"location": "Par' } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: 'is, France"}' } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_02", name: "list_cities", input: {} } },
      { type: "content_block_stop", index: 2 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 89 } },
      { type: "message_stop" },
    ] as Array<{ type: string }>);
    const call = normalizeExchange(exchange(ANTHROPIC_URL, { ...request, stream: true }, { status: 200, sse }));
    expect(call.sse_done).toBe(true);
    expect(call.output_tokens).toBe(89);
    expect(call.output_messages).toEqual([
      {
        role: "assistant",
        finish_reason: "tool_use",
        parts: [
          { type: "reasoning", content: "I need the weather for Paris." },
          { type: "tool_call", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: { location: "Paris, France" } },
          { type: "tool_call", id: "toolu_02", name: "list_cities", arguments: {} },
        ],
      },
    ]);
  });

  it("marks a stream cut before message_stop as not done", () => {
    const sse = eventStream(streamedText as Array<{ type: string }>);
    const call = normalizeExchange(exchange(ANTHROPIC_URL, { ...request, stream: true }, { status: 200, sse }));
    expect(call).toMatchObject({
      is_sse: true,
      sse_event_count: 5,
      sse_done: false,
      finish_reasons: [],
      input_tokens: 25,
      output_tokens: 1,
      output_messages: [{ role: "assistant", parts: [{ type: "text", content: "Once upon a time" }] }],
    });
  });

  it("reports an error event inside the stream", () => {
    const sse =
      eventStream(streamedText as Array<{ type: string }>) +
      'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';
    const call = normalizeExchange(exchange(ANTHROPIC_URL, { ...request, stream: true }, { status: 200, sse }));
    expect(call).toMatchObject({ sse_done: false, sse_event_count: 6, error: "overloaded_error: Overloaded", status_code: 200 });
  });

  it("reads a 529 overloaded error and keeps the raw body text", () => {
    const raw = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}';
    const call = normalizeExchange(exchange(ANTHROPIC_URL, request, { status: 529, headers: { "x-should-retry": "true" }, body: raw }));
    expect(call).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      status_code: 529,
      error: "overloaded_error: Overloaded",
      response_body: raw,
      response_invalid: false,
      output_messages: [],
      finish_reasons: [],
    });
  });

  it("picks the adapter from the body shape when the path is unknown", () => {
    const call = normalizeExchange(
      exchange("https://llm-gateway.internal/proxy", request, { status: 200, body: { id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text: "Sunny." }], stop_reason: "end_turn", usage: { input_tokens: 5, output_tokens: 2 } } }),
    );
    expect(call).toMatchObject({ provider: "anthropic", response_invalid: false, finish_reasons: ["end_turn"], output_messages: [{ role: "assistant", finish_reason: "end_turn", parts: [{ type: "text", content: "Sunny." }] }] });
  });
});

describe("OpenAI Responses API (Codex, the Agents SDK)", () => {
  const RESPONSES_URL = "https://api.openai.com/v1/responses";
  const requestBody = {
    model: "gpt-5-codex",
    instructions: "You are a coding agent.",
    max_output_tokens: 2048,
    input: [
      { role: "developer", content: "Work in /repo." },
      { role: "user", content: [{ type: "input_text", text: "run the tests" }] },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Two commands at once." }], encrypted_content: "gAAAA" },
      { type: "function_call", id: "fc_1", call_id: "call_a", name: "shell", arguments: '{"cmd":"npm test"}' },
      { type: "function_call", id: "fc_2", call_id: "call_b", name: "shell", arguments: '{"cmd":"npm run lint"}' },
      { type: "function_call_output", call_id: "call_a", output: "12 passed" },
      { type: "function_call_output", call_id: "call_b", output: "clean" },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "vitest" } },
    ],
  };
  const completed = {
    id: "resp_123", object: "response", model: "gpt-5-codex-2025", status: "completed", error: null, incomplete_details: null,
    output: [
      { type: "reasoning", id: "rs_2", summary: [] },
      { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "All green.", annotations: [] }] },
      { type: "function_call", id: "fc_3", call_id: "call_c", name: "shell", arguments: '{"cmd":"git status"}', status: "completed" },
    ],
    usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 512 }, output_tokens: 40, total_tokens: 940 },
  };

  it("reads a JSON response: instructions and input items as messages (parallel calls one turn), output items as parts", () => {
    const call = normalizeExchange(exchange(RESPONSES_URL, requestBody, { status: 200, body: JSON.stringify(completed) }));
    expect(call).toMatchObject({
      provider: "openai", model: "gpt-5-codex-2025", trace_id: "resp_123", max_tokens: 2048, is_sse: false, response_invalid: false,
      input_tokens: 900, output_tokens: 40, cache_read_tokens: 512, finish_reasons: ["tool_calls"],
      system_instructions: [{ type: "text", content: "You are a coding agent." }, { type: "text", content: "Work in /repo." }],
    });
    expect(call.input_messages).toEqual([
      { role: "user", parts: [{ type: "text", content: "run the tests" }] },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "Two commands at once." },
          { type: "tool_call", id: "call_a", name: "shell", arguments: { cmd: "npm test" } },
          { type: "tool_call", id: "call_b", name: "shell", arguments: { cmd: "npm run lint" } },
        ],
      },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_a", response: "12 passed" }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_b", response: "clean" }] },
    ]);
    expect(call.output_messages).toEqual([
      {
        role: "assistant",
        finish_reason: "tool_calls",
        parts: [{ type: "text", content: "All green." }, { type: "tool_call", id: "call_c", name: "shell", arguments: { cmd: "git status" } }],
      },
    ]);
  });

  it("a request going on from a previous response (previous_response_id, conversation) answers calls it does not repeat: no orphan", () => {
    for (const state of [{ previous_response_id: "resp_123" }, { conversation: "conv_1" }]) {
      const body = { model: "gpt-5", ...state, input: [{ type: "function_call_output", call_id: "call_c", output: "clean" }, { type: "function_call_output", call_id: "call_d", output: "ok" }, { role: "user", content: "go on" }] };
      const call = normalizeExchange(exchange(RESPONSES_URL, body, { status: 200, body: JSON.stringify(completed) }));
      expect(toolBalance(call.input_messages)).toMatchObject({ dangling: [], orphan: [], duplicate: [] });
      expect(call.input_messages.map((m) => m.role)).toEqual(["assistant", "tool", "tool", "user"]);
      expect(call.input_messages[0].parts).toEqual([
        { type: "tool_call", id: "call_c", name: "", arguments: undefined },
        { type: "tool_call", id: "call_d", name: "", arguments: undefined },
      ]);
    }
    // without stored state, an output answering no call in the history is still an orphan
    const alone = normalizeExchange(exchange(RESPONSES_URL, { model: "gpt-5", input: [{ type: "function_call_output", call_id: "call_c", output: "clean" }] }, { status: 200, body: JSON.stringify(completed) }));
    expect(toolBalance(alone.input_messages).orphan).toEqual(["call_c"]);
  });

  it("computer use, the shell and apply_patch tools and MCP approvals are tool calls the next request answers (not an empty answer)", () => {
    const answer = { id: "resp_9", model: "computer-use-preview", status: "completed", output: [{ type: "computer_call", id: "cu_1", call_id: "call_cu", action: { type: "click", x: 1, y: 2 }, status: "completed" }] };
    const call = normalizeExchange(exchange(RESPONSES_URL, { model: "computer-use-preview", input: "open the settings" }, { status: 200, body: JSON.stringify(answer) }));
    expect(call.output_messages[0]).toMatchObject({ finish_reason: "tool_calls", parts: [{ type: "tool_call", id: "call_cu", name: "computer" }] });
    const next = normalizeExchange(exchange(RESPONSES_URL, {
      model: "gpt-5",
      input: [
        { role: "user", content: "go" },
        { type: "computer_call", call_id: "call_cu", action: { type: "click" } },
        { type: "computer_call_output", call_id: "call_cu", output: { type: "computer_screenshot", image_url: "data:image/png;base64,AAAA" } },
        { type: "shell_call", call_id: "call_sh", action: { commands: ["ls"] } },
        { type: "shell_call_output", call_id: "call_sh", output: [{ stdout: "a b" }] },
        { type: "apply_patch_call", call_id: "call_ap", operation: { type: "update_file", path: "a.ts" } },
        { type: "apply_patch_call_output", call_id: "call_ap", output: "done" },
        { type: "mcp_approval_request", id: "mcpr_1", name: "delete_repo", arguments: "{}", server_label: "gh" },
        { type: "mcp_approval_response", approval_request_id: "mcpr_1", approve: false },
      ],
    }, { status: 200, body: JSON.stringify(completed) }));
    expect(toolBalance(next.input_messages)).toMatchObject({ dangling: [], orphan: [], duplicate: [] });
  });

  it("reads a stream to its response.completed; one cut before it keeps what arrived and is not done", () => {
    const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const opening = [
      ev("response.created", { response: { ...completed, status: "in_progress", output: [] } }),
      ev("response.output_item.added", { output_index: 0, item: { type: "message", id: "msg_1", role: "assistant", content: [] } }),
      ev("response.output_text.delta", { output_index: 0, item_id: "msg_1", content_index: 0, delta: "All " }),
      ev("response.output_text.delta", { output_index: 0, item_id: "msg_1", content_index: 0, delta: "green." }),
    ].join("");
    const whole = opening + ev("response.completed", { response: { ...completed, output: [completed.output[1]] } });
    const done = normalizeExchange(exchange(RESPONSES_URL, { ...requestBody, stream: true }, { status: 200, sse: whole }));
    expect(done).toMatchObject({ is_sse: true, sse_done: true, finish_reasons: ["stop"], output_tokens: 40 });
    expect(done.output_messages[0].parts).toEqual([{ type: "text", content: "All green." }]);
    const cut = normalizeExchange(exchange(RESPONSES_URL, { ...requestBody, stream: true }, { status: 200, sse: opening }));
    expect(cut).toMatchObject({ is_sse: true, sse_done: false, finish_reasons: [] });
    expect(cut.output_messages[0].parts).toEqual([{ type: "text", content: "All green." }]);
  });

  it("an incomplete response (max_output_tokens) finishes `length`; a failed one carries its error", () => {
    const incomplete = { ...completed, status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output: [completed.output[1]] };
    expect(normalizeExchange(exchange(RESPONSES_URL, requestBody, { status: 200, body: JSON.stringify(incomplete) }))).toMatchObject({ finish_reasons: ["length"] });
    const failed = { ...completed, status: "failed", error: { code: "server_error", message: "The model failed." }, output: [] };
    expect(normalizeExchange(exchange(RESPONSES_URL, requestBody, { status: 200, body: JSON.stringify(failed) }))).toMatchObject({ error: "server_error: The model failed.", response_invalid: false });
  });
});

describe("OpenAI's legacy completions and function calls", () => {
  const COMPLETIONS_URL = "https://api.openai.com/v1/completions";
  it("reads a completion's text, JSON or streamed, as the answer (not an empty response)", () => {
    const json = normalizeExchange(exchange(COMPLETIONS_URL, { model: "gpt-3.5-turbo-instruct", prompt: "Say hi" }, { status: 200, body: JSON.stringify({ id: "cmpl-1", object: "text_completion", model: "gpt-3.5-turbo-instruct", choices: [{ index: 0, text: "Hi", finish_reason: "stop" }] }) }));
    expect(json).toMatchObject({ input_messages: [{ role: "user", parts: [{ type: "text", content: "Say hi" }] }], output_messages: [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "Hi" }] }] });
    const streamed = normalizeExchange(exchange(COMPLETIONS_URL, { model: "m", prompt: "Say hi", stream: true }, { status: 200, headers: { "content-type": "text/event-stream" }, sse: dataStream([{ id: "c", choices: [{ index: 0, text: "H", finish_reason: null }] }, { id: "c", choices: [{ index: 0, text: "i", finish_reason: "stop" }] }]) }));
    expect(streamed).toMatchObject({ sse_done: true, output_messages: [{ parts: [{ type: "text", content: "Hi" }] }] });
  });

  it("reads a legacy function_call as a tool call, and a function message as its result", () => {
    const history = [
      { role: "user", content: "weather?" },
      { role: "assistant", content: null, function_call: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      { role: "function", name: "get_weather", content: "rain" },
    ];
    const body = { id: "x", model: "m", choices: [{ index: 0, message: { role: "assistant", content: null, function_call: { name: "get_weather", arguments: '{"city":"Bergen"}' } }, finish_reason: "function_call" }] };
    const call = normalizeExchange(exchange(OPENAI_URL, { model: "m", messages: history }, { status: 200, body: JSON.stringify(body) }));
    expect(toolBalance(call.input_messages)).toMatchObject({ dangling: [], orphan: [], duplicate: [] });
    expect(call.output_messages[0].parts).toEqual([{ type: "tool_call", id: expect.stringMatching(/^call_/), name: "get_weather", arguments: { city: "Bergen" } }]);
  });
});

describe("isModelCall: which exchanges are model calls", () => {
  const at = (url: string, body: unknown = {}, method = "POST") => ({ ...exchange(url, body, { status: 200, body: "{}" }), request: { method, url, body } });
  it("generating endpoints and gateways' own paths with messages are; lists, embeddings and token counting are not", () => {
    for (const url of [OPENAI_URL, ANTHROPIC_URL, "https://api.openai.com/v1/responses", "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", "https://api.openai.com/v1/completions"]) {
      expect(isModelCall(at(url)), url).toBe(true);
    }
    expect(isModelCall(at("https://gateway.example/llm/run", { messages: [{ role: "user", content: "hi" }] }))).toBe(true);
    for (const [url, body] of [
      ["https://api.openai.com/v1/models", null],
      ["https://api.openai.com/v1/embeddings", { model: "text-embedding-3-small", input: "hello" }],
      ["https://api.anthropic.com/v1/messages/count_tokens", { model: "claude-sonnet-4", messages: [{ role: "user", content: "hi" }] }],
      ["https://api.openai.com/v1/moderations", { input: "hello" }],
      ["https://api.openai.com/v1/responses/input_tokens", { model: "gpt-5", input: "hello" }],
      ["http://localhost:11434/api/embed", { model: "nomic-embed-text", input: "hello" }],
      // Gemini's own format: no adapter reads its answers (they would read as invalid or empty)
      ["https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent", { contents: [{ role: "user", parts: [{ text: "hi" }] }] }],
      ["https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent", { contents: [] }],
    ] as const) {
      expect(isModelCall(at(url, body, body ? "POST" : "GET")), url).toBe(false);
    }
    expect(isModelCall(at(OPENAI_URL, null, "GET"))).toBe(false); // OpenAI's list of stored completions
  });
});
