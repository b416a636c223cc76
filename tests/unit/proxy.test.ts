// The recording proxy's pure parts (SPEC §2.6): routing, what goes upstream, what is recorded
// (no credentials), the recording cap, and the /proc/net/tcp lookup.
import { describe, expect, it } from "vitest";
import { MessageChannel } from "node:worker_threads";
import { ExchangeRecorder, transferables, wireExchange, type RecordedExchange } from "@/lib/proxy/exchange";
import { clientResponseHeaders, recordedHeaders, recordedUrl, upstreamRequestHeaders } from "@/lib/proxy/headers";
import { findInode, findInodes } from "@/lib/proxy/peer";
import { parseUpstream, proxiedLocation, routeRequest, upstreamMap } from "@/lib/proxy/routes";

describe("routing", () => {
  const map = upstreamMap(["dashscope=https://dashscope.aliyuncs.com/compatible-mode/", "openai=http://127.0.0.1:9999"]);
  it("maps /NAME/* to the upstream, keeping its path prefix and the query", () => {
    expect(routeRequest("/anthropic/v1/messages?beta=true", map)?.url.toString()).toBe("https://api.anthropic.com/v1/messages?beta=true");
    expect(routeRequest("/openai/v1/chat/completions", map)?.url.toString()).toBe("http://127.0.0.1:9999/v1/chat/completions");
    expect(routeRequest("/dashscope/v1/chat/completions", map)?.url.toString()).toBe("https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions");
    expect(routeRequest("/nope/v1", map)).toBeNull();
    expect(routeRequest("/", map)).toBeNull();
    expect(routeRequest("/%zz/v1", map)).toBeNull(); // a malformed escape names no upstream (it threw)
    expect(routeRequest("/%", map)).toBeNull();
  });
  it("never leaves an upstream's path prefix by dot segments (before, `/dashscope/../admin` reached the host's /admin)", () => {
    for (const path of ["/dashscope/../admin", "/dashscope/v1/%2e%2e/%2E%2e/metrics", "/dashscope/./../x?q=1", "/dashscope/.."]) expect(routeRequest(path, map), path).toBeNull();
    expect(routeRequest("/dashscope/v1/../v2/models", map)?.url.toString()).toBe("https://dashscope.aliyuncs.com/compatible-mode/v2/models");
    expect(routeRequest("/dashscope", map)?.url.toString()).toBe("https://dashscope.aliyuncs.com/compatible-mode");
  });
  it("refuses malformed upstreams", () => {
    expect(() => parseUpstream("x")).toThrow(/NAME=URL/);
    expect(() => parseUpstream("a=ftp://x")).toThrow(/http/);
    expect(() => parseUpstream("a=https://u:p@x")).toThrow(/only scheme/);
    expect(parseUpstream("DeepSeek=https://api.deepseek.com")[0]).toBe("deepseek");
  });
});

describe("headers", () => {
  const agent: [string, string][] = [
    ["Host", "127.0.0.1:8788"], ["Authorization", "Bearer sk-proj-abcdefghijklmnop"], ["x-api-key", "sk-ant-xyz"], ["Cookie", "a=b"],
    ["X-SightDesk-Session", "s1"], ["X-SightDesk-Token", "tok"], ["Connection", "keep-alive, x-hop"], ["x-hop", "1"],
    ["Content-Type", "application/json"], ["OpenAI-Organization", "org-1"], ["X-Goog-Api-Key", "AIza"],
  ];
  it("upstream: the agent's headers (key included) minus hop-by-hop and X-SightDesk-*, Host the upstream's", () => {
    expect(upstreamRequestHeaders(agent, "api.openai.com")).toEqual([
      ["Host", "api.openai.com"], ["Authorization", "Bearer sk-proj-abcdefghijklmnop"], ["x-api-key", "sk-ant-xyz"], ["Cookie", "a=b"],
      ["Content-Type", "application/json"], ["OpenAI-Organization", "org-1"], ["X-Goog-Api-Key", "AIza"],
    ]);
  });
  it("recorded: no credentials, no X-SightDesk-*", () => {
    expect(recordedHeaders(agent)).toEqual({ "content-type": "application/json", "openai-organization": "org-1" });
    expect(recordedHeaders([["Set-Cookie", "x=1"], ["content-type", "text/event-stream"]])).toEqual({ "content-type": "text/event-stream" });
    // gateway credentials under names of their own, and credentials known by their value
    const gateway: [string, string][] = [
      ["Helicone-Auth", "Bearer sk-helicone-abcdefghijklmnop"], ["x-auth-key", "k1"], ["x-functions-key", "k2"], ["X-Portkey-Api-Key", "k3"],
      ["x-custom", "Bearer abcdefghijkl"], ["x-note", "key sk-proj-ABCDEFGHIJKLMNOPQRSTUV in text"], ["anthropic-version", "2023-06-01"], ["x-request-id", "req-1"],
      ["Idempotency-Key", "stainless-retry-1"],
    ];
    const kept = recordedHeaders(gateway);
    expect(Object.keys(kept)).toEqual(["x-note", "anthropic-version", "x-request-id", "idempotency-key"]);
    expect(kept["x-note"]).not.toMatch(/ABCDEFGHIJKLMNOP/);
  });
  it("back to the agent: everything but hop-by-hop headers", () => {
    expect(clientResponseHeaders([["Content-Type", "a"], ["Transfer-Encoding", "chunked"], ["Connection", "close"], ["retry-after", "7"]])).toEqual([["Content-Type", "a"], ["retry-after", "7"]]);
  });
  it("recorded URLs lose userinfo and credential parameters", () => {
    expect(recordedUrl(new URL("https://u:p@gw.example/v1/models/x:generate?key=AIzaSECRET&api_key=1&alt=sse&access_token=t#f"))).toBe("https://gw.example/v1/models/x:generate?alt=sse");
  });
});

describe("the recorder", () => {
  const start = { method: "POST", url: new URL("https://api.openai.com/v1/chat/completions?api-key=x"), requestHeaders: [["authorization", "Bearer sk-1234567890abcdef"]] as [string, string][] };
  it("builds a §2.2 exchange without credentials", () => {
    const r = new ExchangeRecorder({ ...start, origin: { agent_name: "a" } });
    r.requestChunk(Buffer.from('{"model":"m"}'));
    r.responseHead(200, [["Content-Type", "application/json"], ["x-request-id", "req"]]);
    r.responseChunk(Buffer.from('{"id":"chatcmpl-1"}'));
    const x = r.finish();
    expect(x).toMatchObject({ agent_name: "a", request: { method: "POST", url: "https://api.openai.com/v1/chat/completions", headers: {}, body: '{"model":"m"}' }, response: { status: 200, body: '{"id":"chatcmpl-1"}' } });
    expect(JSON.stringify(x)).not.toMatch(/sk-1234/);
    expect(x.call_id).toMatch(/^px-/);
  });
  it("over the cap, a stream keeps its head and its last whole events; any other body is left out", () => {
    const r = new ExchangeRecorder({ ...start, cap: 100 });
    r.responseHead(200, [["content-type", "text/event-stream"]]);
    for (let i = 0; i < 30_000; i++) r.responseChunk(Buffer.from(`data: {"i":${i}}\n\n`));
    r.responseChunk(Buffer.from("data: [DONE]\n\n"));
    const x = r.finish();
    expect(x.response?.sse?.startsWith('data: {"i":0}\n\n')).toBe(true);
    expect(x.response?.sse?.endsWith('data: {"i":29999}\n\ndata: [DONE]\n\n')).toBe(true);
    expect(x.response?.sse).toMatch(/^(data: [^\n]*\n\n)+$/);
    expect(x.recording_truncated).toBeGreaterThan(0);
    const j = new ExchangeRecorder({ ...start, cap: 10 });
    j.responseHead(200, [["content-type", "application/json"]]);
    j.responseChunk(Buffer.from('{"id":"chatcmpl-long-answer"}'));
    expect(j.finish().response).toMatchObject({ status: 200, body: null });
    // past the head but within the tail: the whole stream, unchanged
    const w = new ExchangeRecorder({ ...start, cap: 10 });
    w.responseHead(200, [["content-type", "text/event-stream"]]);
    const events = Array.from({ length: 100 }, (_, i) => `data: {"i":${i}}\n\n`);
    for (const e of events) w.responseChunk(Buffer.from(e));
    expect(w.finish()).toMatchObject({ response: { sse: events.join("") } });
    expect(w.finish().recording_truncated).toBeUndefined();
  });
  it("hands its bytes to another thread without a copy, and they make the same record there", async () => {
    const r = new ExchangeRecorder({ ...start, requestHeaders: [...start.requestHeaders, ["content-encoding", "identity"]] });
    r.requestChunk(Buffer.from('{"model":"m","stream":true}'));
    r.responseHead(200, [["content-type", "text/event-stream"]]);
    const events = Array.from({ length: 3_000 }, (_, i) => `data: {"i":${i},"text":"é ✓"}\n\n`); // ~100 KB in small chunks: the head grows
    for (const e of events) r.responseChunk(Buffer.from(e));
    const captured = r.capture({ endNs: 5n });
    const buffers = transferables(captured);
    expect(buffers).toHaveLength(2);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<RecordedExchange>((resolve) => port2.once("message", resolve));
    port1.postMessage(captured, buffers);
    expect(buffers.every((b) => b.byteLength === 0)).toBe(true); // moved, not copied
    const x = wireExchange(await received);
    port1.close();
    expect(x).toMatchObject({ call_id: r.callId, end_ns: "5", request: { body: '{"model":"m","stream":true}' }, response: { status: 200, sse: events.join("") } });
    expect(x.recording_truncated).toBeUndefined();
  });
  it("keeps at most 3 MiB of a decoded body: a few compressed kilobytes that inflate to 64 MiB are left out, counted", async () => {
    const zlib = await import("node:zlib");
    const bomb = zlib.brotliCompressSync(Buffer.alloc(64 << 20, "a"));
    expect(bomb.length).toBeLessThan(4096);
    const r = new ExchangeRecorder({ ...start, requestHeaders: [["content-encoding", "br"]] });
    r.requestChunk(bomb);
    r.responseHead(200, [["content-type", "application/json"], ["content-encoding", "gzip"]]);
    r.responseChunk(zlib.gzipSync(Buffer.alloc(8 << 20, "b")));
    const x = r.finish();
    expect(x.request.body).toBe("");
    expect(x.response).toMatchObject({ status: 200, body: null });
    expect(x.recording_truncated).toBeGreaterThan(bomb.length);
    // within the cap: decoded as before
    const small = new ExchangeRecorder({ ...start, requestHeaders: [["content-encoding", "br"]] });
    small.requestChunk(zlib.brotliCompressSync('{"model":"m"}'));
    expect(small.finish().request.body).toBe('{"model":"m"}');
  });
  it("over the cap, a stream framed with CR LF keeps its head and last events too", () => {
    const r = new ExchangeRecorder({ ...start, cap: 100 });
    r.responseHead(200, [["content-type", "text/event-stream"]]);
    for (let i = 0; i < 30_000; i++) r.responseChunk(Buffer.from(`data: {"i":${i}}\r\n\r\n`));
    r.responseChunk(Buffer.from("data: [DONE]\r\n\r\n"));
    const sse = r.finish().response?.sse ?? "";
    expect(sse.startsWith('data: {"i":0}\r\n\r\n')).toBe(true);
    expect(sse.endsWith('data: {"i":29999}\r\n\r\ndata: [DONE]\r\n\r\n')).toBe(true);
    expect(sse).toMatch(/^(data: [^\r\n]*\r\n\r\n)+$/);
  });
  it("a compressed stream that decodes past the cap keeps its first and last events, like an uncompressed one", async () => {
    const zlib = await import("node:zlib");
    const events = Array.from({ length: 200_000 }, (_, i) => `data: {"i":${i}}\n\n`).join("") + "data: [DONE]\n\n"; // ≈ 3.6 MiB
    const r = new ExchangeRecorder(start);
    r.responseHead(200, [["content-type", "text/event-stream"], ["content-encoding", "gzip"]]);
    r.responseChunk(zlib.gzipSync(events));
    const x = r.finish();
    const sse = x.response?.sse ?? "";
    expect(sse.startsWith('data: {"i":0}\n\n')).toBe(true);
    expect(sse.endsWith('data: {"i":199999}\n\ndata: [DONE]\n\n')).toBe(true);
    expect(sse).toMatch(/^(data: [^\n]*\n\n)+$/);
    expect(sse.length).toBeLessThan(events.length);
    expect(x.recording_truncated).toBe(events.length - sse.length);
    // the cap is in bytes: text of multi-byte characters keeps no more
    const wide = Array.from({ length: 100_000 }, (_, i) => `data: {"i":${i},"t":"é ✓ 漢字"}\n\n`).join("");
    const w = new ExchangeRecorder(start);
    w.responseHead(200, [["content-type", "text/event-stream"], ["content-encoding", "gzip"]]);
    w.responseChunk(zlib.gzipSync(wide));
    const kept = w.finish().response?.sse ?? "";
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(3 * 1024 * 1024 + 256 * 1024);
    expect(kept.endsWith('data: {"i":99999,"t":"é ✓ 漢字"}\n\n')).toBe(true);
    expect(kept).toMatch(/^(data: [^\n]*\n\n)+$/);
  });
  it("clips who-and-where texts to what ingest takes, and records a status outside 100–599 as the upstream's error", () => {
    const r = new ExchangeRecorder({ ...start, origin: { agent_name: "a".repeat(300), session_id: "s".repeat(600), host: "h" } });
    r.responseHead(600, [["content-type", "application/json"]]);
    r.responseChunk(Buffer.from("{}"));
    const x = r.finish();
    expect(x.agent_name).toBe("a".repeat(256));
    expect(x.session_id).toBe("s".repeat(512));
    expect(x.host).toBe("h");
    expect(x.response).toMatchObject({ status: null, body: "{}" });
    expect(x.error).toBe("upstream answered with status 600");
  });
  it("decodes a gzip answer for the record", async () => {
    const zlib = await import("node:zlib");
    const r = new ExchangeRecorder(start);
    r.responseHead(200, [["content-type", "application/json"], ["content-encoding", "gzip"]]);
    r.responseChunk(zlib.gzipSync('{"ok":true}'));
    expect(r.finish().response?.body).toBe('{"ok":true}');
  });
});

describe("peer lookup", () => {
  it("finds the client end's inode by its ports", () => {
    const table = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 0100007F:2254 0100007F:A3F0 01 00000000:00000000 00:00000000 00000000     0        0 1111 1 0 20 4 30 10 -1",
      "   1: 0100007F:A3F0 0100007F:2254 01 00000000:00000000 00:00000000 00000000     0        0 2222 1 0 20 4 30 10 -1",
    ].join("\n");
    expect(findInode(table, 0xa3f0, 0x2254)).toBe("2222");
    expect(findInode(table, 1, 0x2254)).toBeNull();
    // several connections in one pass (lookups that arrive together share it)
    expect(findInodes(table, new Set([`${0xa3f0}>${0x2254}`, `${0x2254}>${0xa3f0}`, "1>2"]))).toEqual(new Map([[`${0x2254}>${0xa3f0}`, "1111"], [`${0xa3f0}>${0x2254}`, "2222"]]));
  });
});

describe("proxy.upstreams (the server-mounted proxy)", () => {
  it("reads NAME=URL lists from the environment and refuses malformed ones, naming the key", async () => {
    const { loadConfig } = await import("@/lib/config/load");
    const env = (v: string) => ({ SIGHTDESK_PROXY__UPSTREAMS: v }) as unknown as NodeJS.ProcessEnv;
    expect(loadConfig({ env: {} as NodeJS.ProcessEnv, file: null }).proxy.upstreams).toEqual([]);
    expect(loadConfig({ env: env("openai=http://127.0.0.1:9000, deepseek=https://api.deepseek.com"), file: null }).proxy.upstreams).toEqual(["openai=http://127.0.0.1:9000", "deepseek=https://api.deepseek.com"]);
    expect(() => loadConfig({ env: env("openai=ftp://x"), file: null })).toThrow(/proxy\.upstreams: expected a list of NAME=URL/);
    expect(() => loadConfig({ env: env("x=https://u:p@h"), file: null })).toThrow(/proxy\.upstreams/);
  });
});

describe("proxiedLocation", () => {
  const upstreams = upstreamMap(["vllm=http://gpu:8000/compat/", "openai=https://api.openai.com"]);
  const at = new URL("http://gpu:8000/compat/v1/chat/completions");
  it("points a redirect within the upstream at the proxy's route, keeping its query", () => {
    expect(proxiedLocation("http://gpu:8000/compat/v1/chat/completions/?a=1", at, upstreams, "vllm")).toBe("/vllm/v1/chat/completions/?a=1");
    expect(proxiedLocation("/compat/v1/models", at, upstreams, "vllm", "/proxy")).toBe("/proxy/vllm/v1/models");
    expect(proxiedLocation("models", at, upstreams, "vllm")).toBe("/vllm/v1/chat/models");
  });
  it("keeps one that leaves the upstream (another host, or outside its path)", () => {
    expect(proxiedLocation("https://login.example.com/", at, upstreams, "vllm")).toBe("https://login.example.com/");
    expect(proxiedLocation("/other/v1", at, upstreams, "vllm")).toBe("/other/v1");
    expect(proxiedLocation("http://[bad", at, upstreams, "vllm")).toBe("http://[bad");
  });
});
