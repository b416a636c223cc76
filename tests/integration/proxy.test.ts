// The recording proxy (SPEC §2.6) end to end: the real `openai` and `@anthropic-ai/sdk` clients,
// unchanged, pointed at the proxy by base URL, against a fake provider speaking the real wire
// formats; the exchanges go to a real SightDesk server, which must show the right interruption
// (or none). Also: keys never reach SightDesk, spool-then-deliver across a proxy restart, a
// client hanging up, a stream that stalls, answers over the recording cap, the calling process
// found from the socket (CLI proxy and server-mounted route), and the server-mounted route.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wireExchange, type RecordedExchange, type WireExchange } from "@/lib/proxy/exchange";
import { upstreamMap } from "@/lib/proxy/routes";
import { ExchangeSender } from "@/lib/proxy/sender";
import { startProxy, type RunningProxy } from "@/lib/proxy/server";
import { anthropicEvents, anthropicMessage, openaiChunks, openaiCompletion, startFakeProvider, type FakeProvider } from "./support/fakeProvider";
import { databaseBytes, freePort, startServer, type TestServer } from "./support/server";
import { eventually, waitFor } from "../support/waitFor";
import { nodeRequest, rawRequest, sleep } from "./support/http";

const OPENAI_KEY = "sk-proj-PROXYTESTKEY0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-api03-PROXYTESTKEY0123456789abcdef";

let server: TestServer;
let fake: FakeProvider;
let proxy: RunningProxy;
let sender: ExchangeSender;
let spoolDir: string;
const recorded: WireExchange[] = [];

beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startServer({
    SIGHTDESK_DETECTION__SSE_TRUNCATED_MIN_MS: "0",
    SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8",
    SIGHTDESK_PROXY__UPSTREAMS: `openai=${fake.url},anthropic=${fake.url}`,
  });
  spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-spool-"));
  sender = new ExchangeSender({ url: server.url, token: server.token, spoolDir, spoolMaxBytes: 1 << 20, intervalMs: 100 });
  sender.start();
  proxy = await startProxy({
    host: "127.0.0.1", port: 0, agentName: "proxy-test",
    upstreams: upstreamMap([`openai=${fake.url}`, `anthropic=${fake.url}`, `gateway=${fake.url}/compat`]),
    onExchange: (r) => {
      const x = wireExchange(r);
      recorded.push(x);
      sender.add(x);
    },
  });
});
afterAll(async () => {
  await proxy?.close();
  await sender?.stop();
  await fake?.close();
  await server?.stop();
  if (spoolDir) fs.rmSync(spoolDir, { recursive: true, force: true });
});

let n = 0;
const sid = (name: string) => `proxy-${name}-${process.pid}-${++n}`;

const openai = (session: string, base = `${proxy.url}/openai/v1`, headers: Record<string, string> = {}) =>
  new OpenAI({ apiKey: OPENAI_KEY, baseURL: base, maxRetries: 0, timeout: 20_000, defaultHeaders: { "X-SightDesk-Session": session, ...headers } });
const anthropic = (session: string) =>
  new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: `${proxy.url}/anthropic`, maxRetries: 0, timeout: 20_000, defaultHeaders: { "X-SightDesk-Session": session } });

type CallRecord = { call_id: string; status_code: number | null; error: string | null; conversation_id?: string | null; turn_id?: string | null; recording_truncated?: number | null; interruptions: { interruption_type: string }[]; [k: string]: unknown };

/** The session's calls once `count` of them have arrived in SightDesk. */
async function arrived(session: string, count = 1): Promise<CallRecord[]> {
  const calls = async () => {
    const res = await server.api(`/api/sessions/${encodeURIComponent(session)}/calls`);
    return res.ok ? ((await res.json()) as CallRecord[]) : [];
  };
  return eventually(`${count} calls of ${session}`, calls, (c) => c.length >= count, { timeoutMs: 15_000 }).catch((e: Error) => {
    throw new Error(`${e.message} (spool: ${JSON.stringify(sender.snapshot())})`);
  });
}

/** The sessions of `agent` once there is one. */
const sessionsOf = (agent: string) =>
  eventually(`a session of ${agent}`, async () => (await (await server.api(`/api/sessions?agent_name=${encodeURIComponent(agent)}`)).json()) as { pid: number | null; process_name: string | null }[], (found) => found.length > 0, { timeoutMs: 10_000 });

/** Waits for the provider to see its request to `model` end before the answer did. */
const upstreamClosedEarly = (model: string) =>
  waitFor(`the upstream request for ${model} to be aborted`, () => fake.seen.filter((f) => f.body.includes(`"${model}"`)).at(-1)?.closedEarly, { timeoutMs: 5_000, everyMs: 50 });

/** Waits until a spawned `sightdesk proxy` says it listens; fails at once if it exits. */
const proxyStarted = (child: ChildProcess, stderr: () => string) =>
  waitFor("the proxy to start", () => {
    if (child.exitCode !== null) throw new Error(`proxy exited:\n${stderr()}`);
    return stderr().includes("Recording proxy on");
  }, { everyMs: 50 });
const types = (c: CallRecord) => c.interruptions.map((i) => i.interruption_type).sort();
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** The status of a JSON POST that asks to upgrade to h2c, as Java's HttpClient does over http://. */
const h2cPost = async (url: string, headers: Record<string, string>, body: unknown) =>
  (await nodeRequest(url, { method: "POST", headers: { connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "", "content-type": "application/json", ...headers }, body: JSON.stringify(body) })).status;

/** Both proxies: the CLI one, and the one the server mounts (which takes the ingest token as a header). */
const bothProxies = () => [
  { name: "cli", base: proxy.url, headers: {} as Record<string, string> },
  { name: "mounted", base: `${server.url}/proxy`, headers: { "x-sightdesk-token": server.token } as Record<string, string> },
];

describe("OpenAI through the proxy", () => {
  it("JSON: the client gets exactly what the provider sent; the call arrives with no interruption", async () => {
    const s = sid("oa-json");
    const got = await openai(s).chat.completions.create({ model: "json", messages: [{ role: "user", content: "hi" }] });
    expect(plain(got)).toEqual(openaiCompletion("json"));
    const [call] = await arrived(s);
    expect(call).toMatchObject({ status_code: 200, model: "json" });
    expect(types(call)).toEqual([]);
  });

  it("tool calls (JSON and streamed) pass through and are recorded", async () => {
    const s = sid("oa-tools");
    const got = await openai(s).chat.completions.create({ model: "tools", messages: [{ role: "user", content: "ls" }], tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }] });
    expect(plain(got)).toEqual(openaiCompletion("tools", true));
    const chunks: unknown[] = [];
    for await (const c of await openai(s).chat.completions.create({ model: "stream-tools", stream: true, messages: [{ role: "user", content: "read" }] })) chunks.push(plain(c));
    expect(chunks).toEqual(openaiChunks("stream-tools", 0, true));
    const calls = await arrived(s, 2);
    expect(calls.map((c) => c.finish_reasons)).toEqual([["tool_calls"], ["tool_calls"]]);
    expect(calls.flatMap(types)).toEqual([]);
  });

  it("tool calls a provider sends with an empty id, and their results sent back so, pair up: no bricked conversation", async () => {
    const s = sid("oa-no-id");
    const client = openai(s);
    const ask = { role: "user" as const, content: "ls" };
    const first = await client.chat.completions.create({ model: "tools-no-id", messages: [ask] });
    const [called] = first.choices[0].message.tool_calls!;
    expect(called.id).toBe("");
    // the agent sends the call back as it came, and its result with the same (empty) id, twice over
    const history = [ask, first.choices[0].message, { role: "tool" as const, tool_call_id: "", content: "a.txt" }];
    const second = await client.chat.completions.create({ model: "tools-no-id", messages: history });
    await client.chat.completions.create({ model: "json", messages: [...history, second.choices[0].message, { role: "tool" as const, tool_call_id: "", content: "a.txt" }] });
    const calls = await arrived(s, 3);
    for (const c of calls) expect([c.status_code, types(c)]).toEqual([200, []]);
  });

  it("SSE: every chunk arrives unchanged, and none is held back", async () => {
    const s = sid("oa-sse");
    const chunks: unknown[] = [];
    for await (const c of await openai(s).chat.completions.create({ model: "stream", stream: true, messages: [{ role: "user", content: "count" }] })) chunks.push(plain(c));
    expect(chunks).toEqual(openaiChunks("stream", 5));
    // byte for byte, and the first event reaches the client while the provider still holds the rest
    const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, {
      method: "POST", headers: { authorization: `Bearer ${OPENAI_KEY}`, "content-type": "application/json", "x-sightdesk-session": s },
      body: JSON.stringify({ model: "gated", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(fake.sent.get("gated"));
    fake.openGate();
    let rest = first;
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe(fake.sent.get("gated"));
    const calls = await arrived(s, 2);
    expect(calls.flatMap(types)).toEqual([]);
  });

  it("a 429 with retry-after reaches the client as sent and is recorded as rate_limit", async () => {
    const s = sid("oa-429");
    const err = await openai(s).chat.completions.create({ model: "ratelimit", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.headers.get("retry-after")).toBe("7");
    expect(err.error).toEqual({ message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" });
    const [call] = await arrived(s);
    expect(call.status_code).toBe(429);
    expect(types(call)).toEqual(["rate_limit"]);
  });

  it("a stream cut by the provider is cut for the client too and recorded as sse_truncated", async () => {
    const s = sid("oa-cut");
    const chunks: unknown[] = [];
    const err = await (async () => {
      for await (const c of await openai(s).chat.completions.create({ model: "cut", stream: true, messages: [{ role: "user", content: "x" }] })) chunks.push(plain(c));
    })().catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(chunks).toEqual(openaiChunks("cut", 8).slice(0, 3));
    const [call] = await arrived(s);
    expect(call).toMatchObject({ status_code: 200, is_sse: true, sse_done: false, error: null });
    expect(types(call)).toEqual(["sse_truncated"]);
  });

  it("a stream whose connection is reset right after its last events still delivers them to the client", async () => {
    const s = sid("cut-after-done");
    for (const base of [`${proxy.url}/openai/v1`, `${server.url}/proxy/openai/v1`]) {
      const chunks: unknown[] = [];
      const stream = await openai(s, base, { "X-SightDesk-Token": server.token }).chat.completions.create({ model: "cut-after-done", stream: true, messages: [{ role: "user", content: "x" }] });
      // the answer is cut for the client as it was for the proxy, but only after everything that arrived
      const cut = await (async () => {
        for await (const c of stream) chunks.push(plain(c));
      })().catch((e: Error) => e);
      expect(chunks, base).toEqual(openaiChunks("cut-after-done", 3000)); // the proxies dropped what they had gathered or queued
      expect(String(cut)).toMatch(/terminated/);
    }
  });

  it("a stream that stalls after its first events is cut by the idle timeout for the client and recorded timed out", async () => {
    const p = await startProxy({
      host: "127.0.0.1", port: 0, idleTimeoutMs: 300, peers: false,
      upstreams: upstreamMap([`openai=${fake.url}`]),
      onExchange: (r) => {
        const x = wireExchange(r);
        recorded.push(x);
        sender.add(x);
      },
    });
    try {
      const s = sid("oa-stall");
      const chunks: unknown[] = [];
      const err = await (async () => {
        for await (const c of await openai(s, `${p.url}/openai/v1`).chat.completions.create({ model: "stall", stream: true, messages: [{ role: "user", content: "x" }] })) chunks.push(plain(c));
      })().catch((e) => e);
      expect(err).toBeInstanceOf(Error); // ended as a cut stream ends, not as a clean end
      expect(chunks).toEqual(openaiChunks("stall", 8).slice(0, 3));
      const [call] = await arrived(s);
      expect(call).toMatchObject({ status_code: 200, is_sse: true, sse_done: false });
      expect(call.error).toMatch(/timed out mid-answer: no data for 300 ms/);
      expect(types(call)).toEqual(["network_timeout"]);
      await upstreamClosedEarly("stall"); // the upstream request was aborted too
    } finally {
      await p.close();
    }
  });

  it("answers over the 3 MiB recording cap reach the client whole; the call says its recording was truncated", async () => {
    const s = sid("oa-huge");
    const json = await openai(s).chat.completions.create({ model: "huge-json", messages: [{ role: "user", content: "x" }] });
    expect(json.choices[0].message.content).toHaveLength(4 * 1024 * 1024);
    let streamed = 0;
    for await (const c of await openai(s).chat.completions.create({ model: "huge-stream", stream: true, messages: [{ role: "user", content: "x" }] })) streamed += c.choices[0]?.delta?.content?.length ?? 0;
    expect(streamed).toBeGreaterThan(4 * 1024 * 1024);
    const calls = await arrived(s, 2);
    const [jsonCall, streamCall] = [calls.find((c) => c.model === "huge-json")!, calls.find((c) => c.model === "huge-stream")!];
    expect(jsonCall.recording_truncated).toBeGreaterThan(1024 * 1024); // the whole body was left out
    expect(streamCall.recording_truncated).toBeGreaterThan(512 * 1024); // the middle was left out
    expect(streamCall).toMatchObject({ is_sse: true, sse_done: true, finish_reasons: ["stop"] }); // the head and the terminal event were kept
    // an answer not seen whole is not judged (no empty_response for the JSON body left out)
    expect(calls.flatMap(types)).toEqual([]);
    const detail = (await (await server.api(`/api/calls/${encodeURIComponent(jsonCall.call_id)}`)).json()) as CallRecord;
    expect(detail.recording_truncated).toBe(jsonCall.recording_truncated);
    // a call recorded whole says nothing
    await openai(s).chat.completions.create({ model: "json", messages: [{ role: "user", content: "x" }] });
    expect((await arrived(s, 3)).find((c) => c.model === "json")!.recording_truncated).toBeNull();
  });

  it("requests over the recording cap (a long context, screenshots) are each a conversation of their own, not one made of every such call", async () => {
    const s = sid("oa-huge-request");
    for (const fill of ["a", "b"]) {
      const answer = await openai(s).chat.completions.create({ model: "json", messages: [{ role: "user", content: fill.repeat(4 * 1024 * 1024) }] });
      expect(answer.choices[0].message.content).toBeTruthy();
    }
    const calls = await arrived(s, 2);
    expect(calls.map((c) => c.recording_truncated)).toEqual([expect.any(Number), expect.any(Number)]);
    // before, both were keyed by the empty history they arrived with: one conversation, one turn
    expect(new Set(calls.map((c) => c.conversation_id)).size).toBe(2);
    expect(new Set(calls.map((c) => c.turn_id)).size).toBe(2);
  });

  it("a slow answer waits as long as it takes and is not an interruption", async () => {
    const s = sid("oa-slow");
    const t0 = Date.now();
    expect(plain(await openai(s).chat.completions.create({ model: "slow", messages: [{ role: "user", content: "x" }] }))).toEqual(openaiCompletion("slow"));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1100);
    expect(types((await arrived(s))[0])).toEqual([]);
  });

  it("the Responses API (JSON and streamed) arrives as calls with their answer; a model list passes through and is not stored", async () => {
    const s = sid("responses");
    const client = openai(s);
    // before: the list was stored as a call with an invalid body (state_machine_error), a streamed response as sse_truncated
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(["gpt-4o"]);
    expect((await client.responses.create({ model: "json", input: "hi" })).output_text).toBe("Hello from responses.");
    const events: string[] = [];
    for await (const e of await client.responses.create({ model: "stream", input: "hi", stream: true })) events.push(e.type);
    expect(events.at(-1)).toBe("response.completed");
    const calls = await arrived(s, 2);
    expect(calls).toHaveLength(2); // the model list came first: it would be here
    for (const c of calls) {
      expect(c).toMatchObject({ status_code: 200, error: null, interruptions: [] });
      const detail = await (await server.api(`/api/calls/${c.call_id}`)).json();
      expect(detail).toMatchObject({ finish_reasons: ["stop"], output_messages: [{ role: "assistant", parts: [{ type: "text", content: "Hello from responses." }] }] });
    }
  });

  it("a Responses request going on from the previous response (previous_response_id) answers its function call: no orphan result", async () => {
    const s = sid("responses-chain");
    const client = openai(s);
    const first = await client.responses.create({ model: "responses-tool", input: "list the files" });
    const [fc] = first.output;
    expect(fc).toMatchObject({ type: "function_call", call_id: "call_r1" });
    // the history lives with the provider: the request carries only the output of the call
    await client.responses.create({ model: "json", previous_response_id: first.id, input: [{ type: "function_call_output", call_id: "call_r1", output: "a.txt b.txt" }] });
    const calls = await arrived(s, 2);
    for (const c of calls) expect([c.status_code, types(c)]).toEqual([200, []]);
  });

  it("the legacy completions API (a prompt, `text` answers) arrives as a call with its question and answer", async () => {
    const s = sid("completions");
    expect((await openai(s).completions.create({ model: "gpt-3.5-turbo-instruct", prompt: "Say hello" })).choices[0].text).toBe("Hello from completions.");
    const [call] = await arrived(s);
    expect([call.status_code, types(call)]).toEqual([200, []]); // before: an empty response
    const detail = await (await server.api(`/api/calls/${call.call_id}`)).json();
    expect(detail).toMatchObject({
      input_messages: [{ role: "user", parts: [{ type: "text", content: "Say hello" }] }],
      output_messages: [{ role: "assistant", parts: [{ type: "text", content: "Hello from completions." }] }],
    });
  });

  it("an OpenAI-compatible gateway under --upstream NAME=URL keeps its path prefix", async () => {
    const s = sid("oa-gw");
    expect(plain(await openai(s, `${proxy.url}/gateway/v1`).chat.completions.create({ model: "json", messages: [{ role: "user", content: "x" }] }))).toEqual(openaiCompletion("json"));
    expect(fake.seen.at(-1)!.url).toBe("/compat/v1/chat/completions");
    await arrived(s);
  });
});

describe("Anthropic through the proxy", () => {
  it("JSON with a tool_use block", async () => {
    const s = sid("an-json");
    const got = await anthropic(s).messages.create({ model: "claude-tools", max_tokens: 100, messages: [{ role: "user", content: "ls" }] });
    expect(plain(got)).toEqual(anthropicMessage("claude-tools", true));
    const [call] = await arrived(s);
    expect(call).toMatchObject({ status_code: 200, finish_reasons: ["tool_use"] });
    expect(types(call)).toEqual([]);
  });

  it("the event stream: every event unchanged", async () => {
    const s = sid("an-sse");
    const events: unknown[] = [];
    for await (const e of await anthropic(s).messages.create({ model: "claude-stream", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] })) events.push(plain(e));
    // (the SDK drops `ping` events itself; the bytes are compared in the SSE test above)
    expect(events).toEqual(anthropicEvents("claude-stream").filter((e) => e.event !== "ping").map((e) => e.data));
    const [call] = await arrived(s);
    expect(call.finish_reasons).toEqual(["end_turn"]);
    expect(types(call)).toEqual([]);
  });

  it("a turn paused mid-search (pause_turn) goes on with the answer sent back as it is: the server tool call is no dangling call", async () => {
    const s = sid("an-pause");
    const client = anthropic(s);
    const question = { role: "user" as const, content: "weather in Oslo" };
    const paused = await client.messages.create({ model: "claude-pause", max_tokens: 100, messages: [question] });
    expect([paused.stop_reason, paused.content[0].type]).toEqual(["pause_turn", "server_tool_use"]);
    await client.messages.create({ model: "claude-json", max_tokens: 100, messages: [question, { role: "assistant", content: paused.content }] });
    const calls = await arrived(s, 2);
    for (const c of calls) expect([c.status_code, types(c)]).toEqual([200, []]);
  });

  it("a 529 is recorded as service_unavailable", async () => {
    const s = sid("an-529");
    const err = await anthropic(s).messages.create({ model: "claude-overloaded", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err.status).toBe(529);
    expect(err.error).toEqual({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(types((await arrived(s))[0])).toEqual(["service_unavailable"]);
  });
});

describe("failures, secrets, who is calling", () => {
  it("keys go upstream only: never to SightDesk, and X-SightDesk-* headers never upstream", async () => {
    const s = sid("keys");
    await openai(s).chat.completions.create({ model: "json", messages: [{ role: "user", content: "hi" }] });
    await anthropic(s).messages.create({ model: "claude-json", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    const upstream = fake.seen.slice(-2);
    expect(upstream[0].headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(upstream[1].headers.authorization ?? upstream[1].headers["x-api-key"]).toContain(ANTHROPIC_KEY);
    // x-api-key, cookies and credential query parameters too
    const raw = await fetch(`${proxy.url}/anthropic/v1/messages?api_key=${ANTHROPIC_KEY}&beta=true`, {
      method: "POST",
      headers: { "x-api-key": ANTHROPIC_KEY, cookie: `session=${OPENAI_KEY}`, "anthropic-version": "2023-06-01", "content-type": "application/json", "x-sightdesk-session": s },
      body: JSON.stringify({ model: "claude-json", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(await raw.json()).toEqual(anthropicMessage("claude-json"));
    const last = fake.seen.at(-1)!;
    expect([last.url, last.headers["x-api-key"], last.headers.cookie]).toEqual([`/v1/messages?api_key=${ANTHROPIC_KEY}&beta=true`, ANTHROPIC_KEY, `session=${OPENAI_KEY}`]);
    for (const u of upstream) expect(Object.keys(u.headers).filter((k) => k.startsWith("x-sightdesk-"))).toEqual([]);
    await arrived(s, 3);
    const mine = recorded.filter((x) => x.session_id === s);
    expect(mine.at(-1)!.request.url).toBe(`${fake.url}/v1/messages?beta=true`);
    expect(JSON.stringify(mine)).not.toMatch(/PROXYTESTKEY/);
    expect(await databaseBytes(server)).not.toMatch(/PROXYTESTKEY/);
  });

  it("upstream down → 502 JSON, upstream silent → 504 JSON; both recorded with their error", async () => {
    const dead = await freePort();
    const p = await startProxy({
      host: "127.0.0.1", port: 0, timeoutMs: 300, peers: false,
      upstreams: upstreamMap([`openai=http://127.0.0.1:${dead}`, `slow=${fake.url}`]),
      onExchange: (x) => sender.add(wireExchange(x)),
    });
    try {
      const s = sid("down");
      const e502 = await openai(s, `${p.url}/openai/v1`).chat.completions.create({ model: "json", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
      expect(e502.status).toBe(502);
      expect(e502.error).toMatchObject({ type: "upstream_unreachable" });
      const e504 = await openai(s, `${p.url}/slow/v1`).chat.completions.create({ model: "slow", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
      expect(e504.status).toBe(504);
      const calls = await arrived(s, 2);
      expect(calls.map((c) => c.status_code)).toEqual([null, null]);
      expect(calls[0].error).toMatch(/ECONNREFUSED/);
      expect(calls[1].error).toMatch(/timed out/);
      expect(types(calls[1])).toEqual(["network_timeout"]);
      expect(types(calls[0])).toEqual(["llm_error"]);
    } finally {
      await p.close();
    }
  });

  it("a malformed path is a 404, and an over-long agent name or a status outside 100–599 loses no exchange", async () => {
    // CLI proxy: `/%zz` threw URIError in the request listener, which ended the process
    for (const bad of ["/%zz/v1/chat/completions", "/%"]) expect((await fetch(`${proxy.url}${bad}`)).status).toBe(404);
    const mounted = await fetch(`${server.url}/proxy/%zz/v1`, { headers: { "X-SightDesk-Token": server.token } });
    expect(mounted.status).toBe(400); // Next answered a path it cannot decode with a 500
    expect(await mounted.json()).toMatchObject({ error: expect.stringMatching(/Malformed URL/) });
    // the ingest API takes agent names up to 256 characters: the proxy sends a longer one clipped
    const s = sid("edges");
    const longName = `agent-${"x".repeat(300)}`;
    await openai(s, `${proxy.url}/openai/v1`, { "X-SightDesk-Agent": longName }).chat.completions.create({ model: "json", messages: [{ role: "user", content: "x" }] });
    const e600 = await openai(s).chat.completions.create({ model: "status-600", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(e600.status).toBe(600); // the CLI proxy passes on what the upstream sent
    const viaServer = await openai(s, `${server.url}/proxy/openai/v1`, { "X-SightDesk-Token": server.token }).chat.completions.create({ model: "status-600", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(viaServer.status).toBe(502); // a web Response cannot carry 600: the server's route says so
    expect(viaServer.error).toMatchObject({ type: "upstream_error" });
    const calls = await arrived(s, 3);
    expect(calls.map((c) => c.agent_name)).toContain(longName.slice(0, 256));
    const odd = calls.filter((c) => c.status_code === null);
    expect(odd).toHaveLength(2);
    for (const c of odd) expect(c.error).toBe("upstream answered with status 600");
  });

  it("a WebSocket upgrade (the Realtime API) is refused plainly with a 501, and nothing is recorded; an h2c upgrade is served (both proxies)", async () => {
    // the mounted proxy: before, Next took every Upgrade request and closed it without a byte
    for (const { name, base, headers: token } of bothProxies()) {
      const s = sid(`websocket-${name}`);
      const answer = await nodeRequest(`${base}/openai/v1/realtime?model=gpt-realtime`, {
        headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "x-sightdesk-session": s, ...token },
      });
      expect([name, answer.status]).toEqual([name, 501]);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { type: "not_supported" } });
      // an ordinary call of the same session afterwards arrives alone: the upgrade was not recorded
      await openai(s, `${base}/openai/v1`, token).chat.completions.create({ model: "json", messages: [{ role: "user", content: "x" }] });
      expect((await arrived(s, 1)).map((c) => c.status_code)).toEqual([200]);
      // an Upgrade to h2c (what Java's HttpClient asks for over http://) is an ordinary request: served
      const h2c = await h2cPost(`${base}/openai/v1/chat/completions`, { authorization: `Bearer ${OPENAI_KEY}`, "x-sightdesk-session": s, ...token }, { model: "json", messages: [{ role: "user", content: "x" }] });
      expect([name, h2c]).toEqual([name, 200]);
      expect((await arrived(s, 2)).map((c) => c.status_code)).toEqual([200, 200]);
    }
    // the server's own routes too (Java agents posting calls or spans)
    const ingest = await h2cPost(`${server.url}/api/ingest/calls`, { authorization: `Bearer ${server.token}` }, { call_id: sid("h2c-ingest"), start_ns: "1767268800000000000" });
    expect(ingest).toBe(200);
  });

  it("a redirect within the upstream points the agent back at the proxy, so that the call it makes next is recorded too", async () => {
    for (const [base, prefix] of [[proxy.url, ""], [`${server.url}/proxy`, "/proxy"]] as const) {
      for (const kind of ["relative", "absolute"]) {
        const res = await fetch(`${base}/openai/v1/redirect-${kind}`, { method: "POST", redirect: "manual", headers: { "X-SightDesk-Token": server.token, "content-type": "application/json" }, body: "{}" });
        expect(res.status, `${base} ${kind}`).toBe(307);
        // before: the upstream's own address (the agent left the proxy), or a path of it the proxy has no route for
        expect(res.headers.get("location"), `${base} ${kind}`).toBe(`${prefix}/openai/v1/chat/completions`);
      }
    }
  });

  it("a path climbing out of an upstream's prefix (`..`, `%2e%2e`) reaches nothing of that upstream (both proxies)", async () => {
    // (Next resolves the dot segments before the mounted proxy sees the path; the CLI proxy, which
    // routes the path as sent, asked the fake for /secret before)
    for (const { base, headers } of bothProxies()) {
      for (const climb of ["/gateway/v1/../../secret", "/gateway/v1/%2e%2e/%2E%2e/secret"]) {
        const before = fake.seen.length;
        const { status } = await nodeRequest(base, { path: `${new URL(base).pathname.replace(/\/$/, "")}${climb}`, headers });
        expect([base, climb, status]).toEqual([base, climb, 404]);
        expect(fake.seen.slice(before).map((f) => f.url)).toEqual([]);
      }
    }
  });

  it("an upstream that redirects to its path with a trailing slash (FastAPI) is followed to its answer; the query reaches it as sent (both proxies)", async () => {
    for (const { base, headers } of bothProxies()) {
      // before, through the mounted proxy: Next redirected the slashed path back, again and again
      let before = fake.seen.length;
      const res = await fetch(`${base}/openai/v1/slashed`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ model: "json", messages: [{ role: "user", content: "x" }] }) });
      expect([base, res.status, (await res.json()).object]).toEqual([base, 200, "chat.completion"]);
      expect(fake.seen.slice(before).map((f) => f.url)).toEqual(["/v1/slashed", "/v1/slashed/"]);
      // before, through the mounted proxy: `?flag=&t=a+b&time=10%3A00`, as Next rewrote it
      before = fake.seen.length;
      await (await fetch(`${base}/openai/v1/models?flag&t=a%20b&time=10:00&t=c`, { headers })).text();
      expect([base, fake.seen.slice(before).map((f) => f.url)]).toEqual([base, ["/v1/models?flag&t=a%20b&time=10:00&t=c"]]);
    }
  });

  it("a status below 100 from the upstream is a 502 to the agent; the proxy lives on and records the exchange", async () => {
    // Node's writeHead threw on it inside the upstream's response listener, ending the process
    const s = sid("status-42");
    const e42 = await openai(s).chat.completions.create({ model: "status-42", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(e42.status).toBe(502);
    expect(e42.error).toMatchObject({ type: "upstream_error", message: expect.stringMatching(/status 42\b/) });
    const [c] = await arrived(s, 1);
    expect([c.status_code, c.error]).toEqual([null, "upstream answered with status 42"]);
    expect((await fetch(`${proxy.url}/openai/v1/models`)).status).toBe(200);
  });

  it("a GET body the agent sent chunked goes upstream framed, never as a request of its own", async () => {
    // Node frames no body of a GET by itself: unframed, these bytes were a second request
    // (`/smuggled`) on the pooled upstream connection, sent with no key check of its own
    const smuggled = "GET /smuggled HTTP/1.1\r\nHost: upstream\r\n\r\n";
    const chunk = `${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const answer = await rawRequest(proxy.url, `GET /openai/v1/models HTTP/1.1\r\nHost: proxy\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    await sleep(200); // a smuggled request would reach the upstream right after the first
    expect(fake.seen.filter((r) => r.url.includes("smuggled"))).toEqual([]);
    const got = fake.seen.filter((r) => r.url === "/v1/models").at(-1)!;
    expect([got.method, got.body, got.headers["transfer-encoding"]]).toEqual(["GET", smuggled, "chunked"]);
  });

  it("the mounted proxy sends no Content-Length for a GET whose body it does not pass on", async () => {
    // the length promised bytes that never came: the upstream waited for them (or read the next request as them)
    const answer = await rawRequest(server.url, `GET /proxy/openai/v1/models HTTP/1.1\r\nHost: sightdesk\r\nX-SightDesk-Token: ${server.token}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const got = fake.seen.filter((r) => r.url === "/v1/models").at(-1)!;
    expect(got.headers["content-length"] ?? "0").toBe(String(Buffer.byteLength(got.body)));
  });

  it("a client hanging up mid-stream aborts the upstream request and is recorded cancelled", async () => {
    const s = sid("hangup");
    const controller = new AbortController();
    let got = 0;
    await (async () => {
      for await (const _ of await openai(s).chat.completions.create({ model: "hang", stream: true, messages: [{ role: "user", content: "x" }] }, { signal: controller.signal })) {
        if (++got === 3) controller.abort();
      }
    })().catch(() => undefined);
    const [call] = await arrived(s);
    expect(types(call)).toEqual([]);
    expect(call).toMatchObject({ status_code: 200, is_sse: true, cancelled: true });
    const x = recorded.find((r) => r.session_id === s)!;
    expect(x.cancelled).toBe(true);
    await upstreamClosedEarly("hang");
  });

  it("finds the calling process (pid, name) of a loopback client from its socket", async () => {
    const agent = `pid-agent-${process.pid}-${Date.now()}`;
    const client = new OpenAI({ apiKey: OPENAI_KEY, baseURL: `${proxy.url}/openai/v1`, maxRetries: 0, defaultHeaders: { "X-SightDesk-Agent": agent } });
    await client.chat.completions.create({ model: "json", messages: [{ role: "user", content: "who am i" }] });
    const x = await waitFor(`an exchange of ${agent} recorded`, () => recorded.find((r) => r.agent_name === agent), { timeoutMs: 2_500, everyMs: 50 });
    expect(x.pid).toBe(process.pid);
    expect(x.process_name).toBe(fs.readFileSync(`/proc/${process.pid}/comm`, "utf8").trim());
    const sessions = await sessionsOf(agent);
    expect(sessions[0]).toMatchObject({ pid: process.pid, process_name: x.process_name });
  });
});

describe("stopping the proxy", () => {
  /** A proxy of its own whose recorded exchanges are kept, with a gated stream through it that has sent its first event. */
  async function streamInFlight() {
    const got: RecordedExchange[] = [];
    const p = await startProxy({ host: "127.0.0.1", port: 0, upstreams: upstreamMap([`openai=${fake.url}`]), peers: false, onExchange: (x) => got.push(x) });
    const s = sid("stopping");
    const res = await fetch(`${p.url}/openai/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPENAI_KEY}`, "content-type": "application/json", "x-sightdesk-session": s },
      body: JSON.stringify({ model: "gated", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const rest = async () => {
      let text = first;
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
      } catch {
        /* cut */
      }
      return text;
    };
    return { p, got, rest };
  }

  it("lets an answer in flight end, and has recorded it when it has stopped", async () => {
    const { p, got, rest } = await streamInFlight();
    const closing = p.close(30_000);
    const text = rest();
    fake.openGate();
    await closing;
    // before, the stream was cut at once, and recorded only after the proxy said it had stopped
    expect(await text).toContain("data: [DONE]");
    expect(got).toHaveLength(1);
    expect(got[0].cancelled).toBeUndefined();
  });

  it("cuts what is still running after the grace period, recorded as far as it came before it has stopped", async () => {
    const { p, got, rest } = await streamInFlight();
    await p.close(100);
    expect(got).toHaveLength(1);
    expect(got[0].response?.status).toBe(200);
    expect(await rest()).not.toContain("[DONE]");
    fake.openGate(); // the provider's side of the cut stream ends
  });
});

describe("spool", () => {
  it("keeps exchanges on disk while the server is down and delivers them, once, after a proxy restart", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-spool-"));
    try {
      const downUrl = `http://127.0.0.1:${await freePort()}`;
      const s = sid("spool");
      const first = new ExchangeSender({ url: downUrl, token: server.token, spoolDir: dir, spoolMaxBytes: 1 << 20, intervalMs: 100 });
      first.start();
      const p = await startProxy({ host: "127.0.0.1", port: 0, peers: false, upstreams: upstreamMap([`openai=${fake.url}`]), onExchange: (x) => first.add(wireExchange(x)) });
      const t0 = Date.now();
      for (let i = 0; i < 3; i++) await openai(s, `${p.url}/openai/v1`).chat.completions.create({ model: "json", messages: [{ role: "user", content: `q${i}` }] });
      expect(Date.now() - t0).toBeLessThan(2000); // SightDesk being down costs the agent nothing
      await p.close();
      await first.stop();
      const files = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
      expect(files.length).toBeGreaterThan(0);
      const copy = fs.readFileSync(path.join(dir, files[0]), "utf8");
      // "restart": a new sender on the same spool, the server reachable
      const second = new ExchangeSender({ url: server.url, token: server.token, spoolDir: dir, spoolMaxBytes: 1 << 20, intervalMs: 100 });
      await second.flush();
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl"))).toEqual([]);
      expect((await arrived(s, 3)).length).toBe(3);
      // re-sending the same file is a no-op
      fs.writeFileSync(path.join(dir, files[0]), copy);
      await second.flush();
      await new Promise((r) => setTimeout(r, 200));
      expect((await arrived(s, 3)).length).toBe(3);
      await second.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("one exchange the server refuses costs only itself: the batch is split until it is alone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-spool-"));
    try {
      const logs: string[] = [];
      const s = sid("split");
      const one = new ExchangeSender({ url: server.url, token: server.token, spoolDir: dir, spoolMaxBytes: 1 << 20, intervalMs: 60_000, batchSize: 10, log: (l) => logs.push(l) });
      const at = String(BigInt(Date.now()) * 1_000_000n);
      const x: WireExchange = {
        call_id: "", start_ns: at, end_ns: at,
        request: { method: "POST", url: "https://api.openai.com/v1/chat/completions", headers: {}, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }) },
        response: { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(openaiCompletion("json")) },
      };
      for (let i = 0; i < 10; i++) one.add({ ...x, session_id: s, call_id: i === 6 ? "" : `split-${s}-${i}` }); // an empty call_id is refused (400)
      await one.flush();
      expect(one.snapshot()).toMatchObject({ sent: 9, dropped: 1, pending: 0 });
      expect((await arrived(s, 9)).length).toBe(9);
      expect(logs.filter((l) => /refused an exchange \(HTTP 400: .*call_id/.test(l))).toHaveLength(1);
      await one.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is bounded: past its size the oldest exchanges are dropped and counted", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-spool-"));
    try {
      const logs: string[] = [];
      const down = new ExchangeSender({ url: `http://127.0.0.1:${await freePort()}`, token: "t", spoolDir: dir, spoolMaxBytes: 20_000, intervalMs: 60_000, batchSize: 10, log: (l) => logs.push(l) });
      const x = recorded[0];
      for (let i = 0; i < 200; i++) down.add({ ...x, call_id: `spool-bound-${i}` });
      await down.flush();
      const left = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
      const total = left.reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
      expect(total).toBeLessThanOrEqual(20_000 + 10 * JSON.stringify(x).length);
      expect(down.snapshot().dropped).toBeGreaterThan(0);
      expect(logs.join("\n")).toMatch(/dropped the \d+ oldest exchanges/);
      // the newest are the ones kept
      expect(fs.readFileSync(path.join(dir, left.at(-1)!), "utf8")).toContain("spool-bound-199");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the proxy mounted in the server (/proxy/*)", () => {
  it("streams through with X-SightDesk-Token, stores the exchange, and refuses a missing token", async () => {
    const s = sid("mounted");
    const client = openai(s, `${server.url}/proxy/openai/v1`, { "X-SightDesk-Token": server.token });
    const chunks: unknown[] = [];
    for await (const c of await client.chat.completions.create({ model: "stream", stream: true, messages: [{ role: "user", content: "x" }] })) chunks.push(plain(c));
    expect(chunks).toEqual(openaiChunks("stream", 5));
    const upstream = fake.seen.at(-1)!;
    expect(upstream.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(Object.keys(upstream.headers).filter((k) => k.startsWith("x-sightdesk-") || k.startsWith("x-forwarded-"))).toEqual([]);
    const [call] = await arrived(s);
    expect(types(call)).toEqual([]);
    const err = await openai(s, `${server.url}/proxy/openai/v1`).chat.completions.create({ model: "json", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err.status).toBe(401);
    const e429 = await client.chat.completions.create({ model: "ratelimit", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(e429.status).toBe(429);
    expect(types((await arrived(s, 2)).find((c) => c.status_code === 429)!)).toEqual(["rate_limit"]);
    expect(await databaseBytes(server)).not.toMatch(/PROXYTESTKEY/);
  });

  it("a provider that compresses its answers (OpenAI's API, to a client that accepts gzip): the client reads them, and they are recorded with their content", async () => {
    // the CLI proxy passes the answer on compressed; the mounted one asks for it uncompressed
    // (Next drops a route's Content-Encoding: before, the agent got gzip bytes as JSON)
    for (const { name, base, headers } of bothProxies()) {
      const s = sid(`gzip-${name}`);
      const before = fake.seen.length;
      const got = await openai(s, `${base}/openai/v1`, headers).chat.completions.create({ model: "gzip-json", messages: [{ role: "user", content: "x" }] });
      expect(fake.seen.slice(before).map((f) => f.headers["accept-encoding"])).toEqual([name === "cli" ? expect.stringMatching(/gzip/) : "identity"]);
      expect(plain(got)).toEqual(openaiCompletion("gzip-json"));
      const [call] = await arrived(s);
      expect([call.status_code, types(call)]).toEqual([200, []]);
    }
  });

  it("passes the status and headers on as soon as the provider sends them, before any byte of the body (both proxies)", async () => {
    // a model that thinks for minutes before its first event: before, the mounted proxy held the
    // status back until the first byte of the body (Next sends the head with the first chunk)
    for (const { name, base, headers } of bothProxies()) {
      const answered = fetch(`${base}/openai/v1/chat/completions`, {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${OPENAI_KEY}`, "content-type": "application/json", "x-sightdesk-session": sid(`silent-${name}`) },
        body: JSON.stringify({ model: "silent-start", stream: true, messages: [{ role: "user", content: "x" }] }),
      });
      const head = await Promise.race([answered, sleep(3_000).then(() => null)]);
      expect([name, head?.status]).toEqual([name, 200]);
      fake.openGate();
      expect((await head!.text()).endsWith("data: [DONE]\n\n")).toBe(true);
    }
  });

  it("does not hold back an SSE event (no buffering or compression in the server)", async () => {
    const s = sid("mounted-gated");
    const before = fake.sent.get("gated") ?? "";
    const res = await fetch(`${server.url}/proxy/openai/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPENAI_KEY}`, "content-type": "application/json", "accept-encoding": "gzip, deflate, br", "x-sightdesk-token": server.token, "x-sightdesk-session": s },
      body: JSON.stringify({ model: "gated", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform"); // the one header the mounted proxy changes
    const reader = res.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    expect(before + text).toBe(fake.sent.get("gated")); // the first event, while the provider waits
    fake.openGate();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    expect(before + text).toBe(fake.sent.get("gated"));
    await arrived(s);
  });
  it("finds the calling process (pid, name) of a loopback client, as the CLI proxy does", async () => {
    const agent = `mounted-pid-agent-${process.pid}-${Date.now()}`;
    const client = new OpenAI({ apiKey: OPENAI_KEY, baseURL: `${server.url}/proxy/openai/v1`, maxRetries: 0, defaultHeaders: { "X-SightDesk-Token": server.token, "X-SightDesk-Agent": agent } });
    await client.chat.completions.create({ model: "json", messages: [{ role: "user", content: "who am i" }] });
    const sessions = await sessionsOf(agent);
    expect(sessions[0]).toMatchObject({ pid: process.pid, process_name: fs.readFileSync(`/proc/${process.pid}/comm`, "utf8").trim() });
  });

  it("a client hanging up aborts the upstream request; recorded cancelled, no interruption", async () => {
    const s = sid("mounted-hangup");
    const controller = new AbortController();
    const res = await fetch(`${server.url}/proxy/openai/v1/chat/completions`, {
      method: "POST", signal: controller.signal,
      headers: { authorization: `Bearer ${OPENAI_KEY}`, "content-type": "application/json", "x-sightdesk-token": server.token, "x-sightdesk-session": s },
      body: JSON.stringify({ model: "hang", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.read();
    controller.abort();
    const [call] = await arrived(s);
    expect(types(call)).toEqual([]);
    expect(call).toMatchObject({ status_code: 200, is_sse: true, cancelled: true });
    await upstreamClosedEarly("hang");
  });
});

describe("the sightdesk proxy command", () => {
  /**
   * `sightdesk proxy` started as a user starts it (bin/sightdesk.mjs, its launcher) on a free port
   * with a spool of its own; `run` gets it once it listens. Afterwards it is killed if still
   * running (its process group when `detached`) and its spool removed.
   */
  async function withProxyCommand(
    options: { extra?: string[]; detached?: boolean },
    run: (p: { launcher: ChildProcess; port: number; stderr: () => string }) => Promise<void>,
  ): Promise<void> {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-spool-"));
    const launcher = spawn(process.execPath, [path.resolve(__dirname, "../../bin/sightdesk.mjs"), "proxy", "--url", server.url, "--token", server.token, "--listen", `127.0.0.1:${port}`, "--spool", dir, ...(options.extra ?? []), "--upstream", `openai=${fake.url}`], {
      env: { ...process.env, SIGHTDESK_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.detached, // a process group of its own, as a terminal's job is
    });
    let err = "";
    launcher.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    try {
      await proxyStarted(launcher, () => err);
      await run({ launcher, port, stderr: () => err });
    } finally {
      if (launcher.exitCode === null) {
        if (options.detached) process.kill(-launcher.pid!, "SIGKILL");
        else launcher.kill("SIGKILL");
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it("starts, records to the server, and stops on SIGTERM leaving nothing unsent", async () => {
    await withProxyCommand({ extra: ["--agent-name", "cli-proxy"] }, async ({ launcher: child, port, stderr }) => {
      const s = sid("cli");
      expect(plain(await openai(s, `http://127.0.0.1:${port}/openai/v1`).chat.completions.create({ model: "json", messages: [{ role: "user", content: "x" }] }))).toEqual(openaiCompletion("json"));
      const [call] = await arrived(s);
      expect(call).toMatchObject({ status_code: 200 });
      child.kill("SIGTERM");
      const code = await new Promise((r) => child.once("exit", r));
      expect(code).toBe(0);
      expect(stderr()).toMatch(/stopped: 1 exchanges sent, 0 spool files left/);
    });
  });

  it("a SIGINT sent to the launcher alone stops the proxy child too, gracefully", async () => {
    await withProxyCommand({}, async ({ launcher, stderr }) => {
      const exited = new Promise<number | null>((resolve) => launcher.once("exit", (code) => resolve(code)));
      launcher.kill("SIGINT"); // before: swallowed; the child went on holding the port
      expect(await exited).toBe(0);
      expect(stderr()).toMatch(/stopped: \d+ exchanges sent/);
    });
  });

  it("a terminal's Ctrl-C (SIGINT to the launcher and the child) stops it gracefully, not by the SIGTERM passed on", async () => {
    await withProxyCommand({ detached: true }, async ({ launcher, stderr }) => {
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => launcher.once("exit", (code, sig) => resolve([code, sig])));
      process.kill(-launcher.pid!, "SIGINT");
      // before: the child had let its handlers go when the launcher's SIGTERM came, and died of it mid-stop
      expect(await exited).toEqual([0, null]);
      expect(stderr()).toMatch(/stopped: \d+ exchanges sent/);
    });
  });

  it("runs the proxy as a child with the heap settings, which stops when the launcher is killed outright", async () => {
    const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
    await withProxyCommand({}, async ({ launcher }) => {
      const [child] = fs.readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, "utf8").trim().split(/\s+/).map(Number);
      expect(fs.readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0")).toEqual(expect.arrayContaining(["--max-semi-space-size=64", "--initial-old-space-size=256", "proxy"]));
      launcher.kill("SIGKILL");
      await waitFor("the proxy child to exit, not left holding the port as an orphan", () => !alive(child), { timeoutMs: 10_000 });
    });
  });
});

