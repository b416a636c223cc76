// A fake LLM provider on 127.0.0.1 that speaks the real wire formats: OpenAI Chat Completions
// (JSON and SSE ending in `data: [DONE]`) and Anthropic Messages (JSON and its event stream),
// with tool calls, errors (429 with retry-after, 529), a stream cut mid-way, a stream that stalls
// after its first events, a slow answer, an endless stream, a stream held at a gate, and answers
// over the proxy's 3 MiB recording cap. The model name picks the scenario. It keeps what it was
// sent and exactly what it answered, so a test can compare both ends.
import http from "node:http";
import type net from "node:net";
import zlib from "node:zlib";

export type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; closedEarly: boolean };
export type FakeProvider = {
  url: string;
  seen: Seen[];
  /** the exact bytes of each answer's body, by the request's model */
  sent: Map<string, string>;
  /** releases the "gated" stream after its first event */
  openGate: () => void;
  close: () => Promise<void>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

export function openaiCompletion(model: string, tools = false) {
  return {
    id: `chatcmpl-${model}`, object: "chat.completion", created: 1767268800, model,
    choices: [{
      index: 0, logprobs: null, finish_reason: tools ? "tool_calls" : "stop",
      message: tools
        ? { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"cmd":"ls"}' } }] }
        : { role: "assistant", content: "Hello from the fake provider.", refusal: null },
    }],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  };
}

export function openaiChunks(model: string, n: number, tools = false): unknown[] {
  const base = { id: `chatcmpl-${model}`, object: "chat.completion.chunk", created: 1767268800, model };
  const out: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  if (tools) {
    out.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "read_file", arguments: "" } }] }, finish_reason: null }] });
    out.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"path":"a.txt"}' } }] }, finish_reason: null }] });
  } else for (let i = 0; i < n; i++) out.push({ ...base, choices: [{ index: 0, delta: { content: `word${i} ` }, finish_reason: null }] });
  out.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: tools ? "tool_calls" : "stop" }] });
  out.push({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: n, total_tokens: 12 + n } });
  return out;
}

/** A completed Responses API response (POST /v1/responses) with one text message. */
export function responsesBody(model: string) {
  return {
    id: `resp_${model}`, object: "response", created_at: 1767268800, model, status: "completed", error: null, incomplete_details: null,
    output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hello from responses.", annotations: [] }] }],
    usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 9 },
  };
}

export function anthropicMessage(model: string, tools = false) {
  return {
    id: `msg_${model}`, type: "message", role: "assistant", model,
    content: tools ? [{ type: "tool_use", id: "toolu_1", name: "bash", input: { cmd: "ls" } }] : [{ type: "text", text: "Hello from the fake provider." }],
    stop_reason: tools ? "tool_use" : "end_turn", stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 7 },
  };
}

export function anthropicEvents(model: string): { event: string; data: unknown }[] {
  return [
    { event: "message_start", data: { type: "message_start", message: { id: `msg_${model}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } } },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "ping", data: { type: "ping" } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " there." } } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } } },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const seen: Seen[] = [];
  const sent = new Map<string, string>();
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => (release = r));
  const sockets = new Set<net.Socket>();

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const entry: Seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, closedEarly: false };
    seen.push(entry);
    res.on("close", () => (entry.closedEarly = !res.writableFinished));
    let model = "json";
    try {
      model = String(JSON.parse(body).model ?? "json");
    } catch {
      /* no body */
    }
    const anthropic = (req.url ?? "").includes("/v1/messages");
    const record = (text: string) => sent.set(model, (sent.get(model) ?? "") + text);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(value);
      record(text);
      res.writeHead(status, { "content-type": "application/json", "x-request-id": `req_${model}`, ...headers });
      res.end(text);
    };
    const stream = async (events: string[], opts: { cutAfter?: number; stallAfter?: number; delayMs?: number } = {}) => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": `req_${model}` });
      if (model === "silent-start") {
        res.flushHeaders(); // the status and headers now, the first event only when the gate opens (a model thinking first)
        await gate;
      }
      for (let i = 0; i < events.length; i++) {
        if (opts.cutAfter !== undefined && i === opts.cutAfter) {
          await sleep(20);
          res.socket?.destroy();
          return;
        }
        if (opts.stallAfter !== undefined && i === opts.stallAfter) {
          await new Promise((r) => res.once("close", r)); // silent, connection open, until the other end gives up
          return;
        }
        record(events[i]);
        res.write(events[i]);
        if (model === "gated" && i === 0) await gate;
        else if (opts.delayMs !== 0) await sleep(opts.delayMs ?? 2);
      }
      res.end();
    };

    // a redirect, as FastAPI answers a path without its trailing slash: to a path of this host (relative or absolute)
    if ((req.url ?? "").includes("/v1/redirect")) {
      const to = (req.url ?? "").includes("absolute") ? `http://${req.headers.host}/v1/chat/completions` : "/v1/chat/completions";
      res.writeHead(307, { location: to, "content-length": "0" }).end();
      return;
    }
    // the legacy completions API: a prompt in, `text` out
    if ((req.url ?? "").endsWith("/v1/completions")) {
      return json(200, { id: `cmpl-${model}`, object: "text_completion", created: 1767268800, model, choices: [{ text: "Hello from completions.", index: 0, logprobs: null, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
    }
    // FastAPI's answer to a path declared with a trailing slash, asked for without it
    if (req.url === "/v1/slashed") return void res.writeHead(307, { location: "/v1/slashed/", "content-length": "0" }).end();
    if (req.url === "/v1/slashed/") return json(200, openaiCompletion(model));
    if ((req.url ?? "").split("?")[0].endsWith("/v1/models")) return json(200, { object: "list", data: [{ id: "gpt-4o", object: "model", created: 1715367049, owned_by: "system" }] });
    if ((req.url ?? "").includes("/v1/responses")) {
      const done = responsesBody(model);
      // a function call, which the next request answers going on from this response (previous_response_id)
      if (model === "responses-tool") return json(200, { ...done, output: [{ type: "function_call", id: "fc_1", call_id: "call_r1", name: "bash", arguments: '{"cmd":"ls"}', status: "completed" }] });
      if (model !== "stream") return json(200, done);
      const item = done.output[0];
      const ev = (type: string, data: Record<string, unknown>, n: number) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n, ...data })}\n\n`;
      return stream([
        ev("response.created", { response: { ...done, status: "in_progress", output: [] } }, 0),
        ev("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }, 1),
        ev("response.output_text.delta", { output_index: 0, item_id: item.id, content_index: 0, delta: "Hello from " }, 2),
        ev("response.output_text.delta", { output_index: 0, item_id: item.id, content_index: 0, delta: "responses." }, 3),
        ev("response.output_item.done", { output_index: 0, item }, 4),
        ev("response.completed", { response: done }, 5),
      ]);
    }
    if (anthropic) {
      const name = model.replace(/^claude-/, "");
      if (name === "overloaded") return json(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
      if (name === "stream") return stream(anthropicEvents(model).map((e) => sse(e.data, e.event)));
      // a turn paused mid-search (a server tool): the client sends the answer back as it is to go on
      if (name === "pause") return json(200, { ...anthropicMessage(model), content: [{ type: "server_tool_use", id: "srvtoolu_p1", name: "web_search", input: { query: "Oslo weather" } }], stop_reason: "pause_turn" });
      return json(200, anthropicMessage(model, name === "tools"));
    }
    switch (model) {
      case "tools":
        return json(200, openaiCompletion(model, true));
      case "gzip-json": { // compressed, as OpenAI's API answers a client that accepts gzip
        const text = JSON.stringify(openaiCompletion(model));
        record(text);
        const gzipped = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
        res.writeHead(200, { "content-type": "application/json", "x-request-id": `req_${model}`, ...(gzipped ? { "content-encoding": "gzip" } : {}) });
        res.end(gzipped ? zlib.gzipSync(text) : text);
        return;
      }
      case "tools-no-id": { // Gemini's OpenAI endpoint, LM Studio, llama.cpp: tool calls with an empty id
        const done = openaiCompletion(model, true);
        return json(200, { ...done, choices: [{ ...done.choices[0], message: { ...done.choices[0].message, tool_calls: [{ id: "", type: "function", function: { name: "bash", arguments: '{"cmd":"ls"}' } }] } }] });
      }
      case "status-600": // outside HTTP's 100–599 (Node's server sends it; a web Response cannot)
        return json(600, { error: { message: "no such status" } });
      case "status-42": { // below 100: Node's server will not send it, so the status line is written raw
        const text = JSON.stringify({ error: { message: "odd status" } });
        record(text);
        res.socket?.end(`HTTP/1.1 042 Odd\r\ncontent-type: application/json\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${text}`);
        return;
      }
      case "ratelimit":
        return json(429, { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } }, { "retry-after": "7" });
      case "stream":
      case "gated":
      case "silent-start":
        return stream([...openaiChunks(model, 5).map((c) => sse(c)), sse("[DONE]")]);
      case "stream-tools":
        return stream([...openaiChunks(model, 0, true).map((c) => sse(c)), sse("[DONE]")]);
      case "cut-after-done": // ~400 KB of events, then the connection reset: the proxy reads several chunks and the reset in one turn
        res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "x-request-id": `req_${model}` });
        {
          const events = [...openaiChunks(model, 3000).map((c) => sse(c)), sse("[DONE]")].join("");
          record(events);
          res.write(events, () => res.socket?.destroy()); // destroyed once the bytes reached the kernel
        }
        return;
      case "cut":
        return stream([...openaiChunks(model, 8).map((c) => sse(c)), sse("[DONE]")], { cutAfter: 3 });
      case "slow":
        await sleep(1200);
        return json(200, openaiCompletion(model));
      case "hang":
        return stream(Array.from({ length: 400 }, (_, i) => sse(openaiChunks(model, 400)[Math.min(i, 399)])), { delayMs: 50 });
      case "big":
        return stream([...openaiChunks(model, 500).map((c) => sse(c)), sse("[DONE]")], { delayMs: 0 });
      case "stall":
        return stream([...openaiChunks(model, 8).map((c) => sse(c)), sse("[DONE]")], { stallAfter: 3 });
      case "huge-json": // 4 MiB of content: over the proxy's 3 MiB cap
        return json(200, { ...openaiCompletion(model), choices: [{ ...openaiCompletion(model).choices[0], message: { role: "assistant", content: "x".repeat(4 * 1024 * 1024), refusal: null } }] });
      case "huge-stream": { // ~4.5 MiB of events: over the proxy's 3 MiB cap
        const [first, ...last] = openaiChunks(model, 0) as { choices: unknown[] }[];
        const words = Array.from({ length: 900 }, (_, i) => ({ ...first, choices: [{ index: 0, delta: { content: `${"y".repeat(5000)}${i}` }, finish_reason: null }] }));
        return stream([first, ...words, ...last].map((c) => sse(c)).concat(sse("[DONE]")), { delayMs: 0 });
      }
      default:
        return json(200, openaiCompletion(model));
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    sent,
    openGate: () => {
      release();
      gate = new Promise<void>((r) => (release = r));
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
