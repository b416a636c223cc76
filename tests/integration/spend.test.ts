// Wasted spend (issue 15, part 4) against the real server and database: each call priced from
// its stored tokens and the price table (defaults plus `pricing.models` from the environment),
// raw OpenAI and Anthropic exchanges with cache tokens, per-agent spend and wasted spend (failed
// calls and dead loops), a session's, a call's and an interruption's cost, and unknown prices.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, ns, toolCall, uid } from "./support/payloads";
import { expectError, ingestCalls, request, sessionInterruptions, type InterruptionRecord } from "./support/http";
import { startServer, type TestServer } from "./support/server";

let server: TestServer;

// acme-model is priced by the configuration only; gpt-4o's default price is replaced.
const PRICES = {
  "acme-model": { input: 1, output: 2 },
  "gpt-4o": { input: 2, output: 8, cache_read: 1 },
};

beforeAll(async () => {
  server = await startServer({ SIGHTDESK_PRICING__MODELS: JSON.stringify(PRICES) });
});
afterAll(async () => {
  await server?.stop();
});

const get = <T>(route: string, token?: string | null) => request<T>(server, "GET", route, undefined, token);
const usd = (tokens: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number }, price: { input: number; output: number; cache_read: number; cache_write: number }) =>
  ((tokens.input ?? 0) * price.input + (tokens.output ?? 0) * price.output + (tokens.cacheRead ?? 0) * price.cache_read + (tokens.cacheWrite ?? 0) * price.cache_write) / 1e6;

const GPT4O = { input: 2, output: 8, cache_read: 1, cache_write: 2 };
const ACME = { input: 1, output: 2, cache_read: 1, cache_write: 1 };
const SONNET = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }; // the shipped default

type ModelCost = { model: string | null; price_key: string | null; calls: number; cost_usd: number | null };
type Summary = { currency: "USD"; calls: number; priced_calls: number; unpriced_calls: number; unpriced_models: string[]; cost_usd: number; by_model: ModelCost[] };
type AgentSpend = Omit<Summary, "currency"> & { agent_name: string | null; wasted_calls: number; wasted_usd: number; failed_calls: number; failed_usd: number; loop_calls: number; loop_usd: number; wasted_unpriced_calls: number };
type Spend = { start_ns: string; end_ns: string; currency: "USD"; total: { calls: number; cost_usd: number; wasted_usd: number; unpriced_calls: number }; agents: AgentSpend[] };
type InterruptionSpend = Summary & { interruption_id: string; basis: string; listed_calls: { call_id: string; cost_usd: number | null }[] };

const agent = uid("SpendAgent");
const other = uid("OtherAgent");
const session = uid("spend-session");
const loopConversation = uid("loop");
const stormConversation = uid("storm");

// One agent's calls: a plain gpt-4o call with cache hits, a failed one, a model with no price,
// a raw Anthropic exchange with cache reads and writes, a dead loop of acme-model calls and a
// retry storm of rate-limited calls (each failed call still used input tokens).
const ok = call({ agent_name: agent, session_id: session, model: "gpt-4o-2024-08-06", input_tokens: 1000, cache_read_tokens: 400, output_tokens: 100 }, 0);
const failed = call({ agent_name: agent, session_id: session, model: "gpt-4o", status_code: 500, error: "internal server error", input_tokens: 500, output_tokens: 0, output_messages: [], finish_reasons: [], conversation_id: uid("conv") }, 1000);
const mystery = call({ agent_name: agent, session_id: session, model: "mystery-model-7", input_tokens: 100, output_tokens: 10 }, 2000);
const loop = Array.from({ length: 7 }, (_, i) =>
  call({ agent_name: agent, session_id: session, conversation_id: loopConversation, model: "acme-model", input_tokens: 100, output_tokens: 10, output_messages: [toolCall(`l${i}`, "bash", { cmd: "cat package.json" })], finish_reasons: ["tool_calls"] }, 10_000 + i * 1000),
);
const storm = Array.from({ length: 5 }, (_, i) =>
  call({ agent_name: agent, session_id: session, conversation_id: stormConversation, model: "gpt-4o", status_code: 429, error: "rate_limit_exceeded", input_tokens: 300, output_tokens: 0, output_messages: [], finish_reasons: [] }, 30_000 + i * 1000),
);
const anthropicCallId = uid("http-anthropic");
const anthropicExchange = {
  call_id: anthropicCallId, session_id: session, agent_name: agent, start_ns: ns(40_000), end_ns: ns(41_000),
  request: { method: "POST", url: "https://api.anthropic.com/v1/messages", body: { model: "claude-sonnet-4-5-20250929", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] } },
  response: {
    status: 200,
    body: JSON.stringify({
      id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "Hello." }], stop_reason: "end_turn",
      usage: { input_tokens: 50, cache_read_input_tokens: 2000, cache_creation_input_tokens: 400, output_tokens: 20 },
    }),
  },
};
const openaiCallId = uid("http-openai");
const openaiExchange = {
  call_id: openaiCallId, session_id: session, agent_name: agent, start_ns: ns(42_000), end_ns: ns(43_000),
  request: { method: "POST", url: "https://api.openai.com/v1/chat/completions", body: { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] } },
  response: {
    status: 200,
    body: JSON.stringify({
      id: "chatcmpl-1", object: "chat.completion", model: "gpt-4o-2024-08-06",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello." } }],
      usage: { prompt_tokens: 1000, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 600 } },
    }),
  },
};
const otherCall = call({ agent_name: other, session_id: uid("other-session"), model: "acme-model", input_tokens: 1_000_000, output_tokens: 0 }, 500);

const costs = {
  ok: usd({ input: 600, cacheRead: 400, output: 100 }, GPT4O),
  failed: usd({ input: 500 }, GPT4O),
  loopCall: usd({ input: 100, output: 10 }, ACME),
  stormCall: usd({ input: 300 }, GPT4O),
  // Anthropic counts cache tokens beside input_tokens
  anthropic: usd({ input: 50, cacheRead: 2000, cacheWrite: 400, output: 20 }, SONNET),
  // OpenAI counts cached tokens inside prompt_tokens
  openai: usd({ input: 400, cacheRead: 600, output: 30 }, GPT4O),
};

let interruptions: InterruptionRecord[] = [];
const interruption = (type: string) => {
  const found = interruptions.filter((r) => r.interruption_type === type);
  expect(found, type).toHaveLength(1);
  return found[0];
};

beforeAll(async () => {
  await ingestCalls(server, [ok, failed, mystery, ...loop.slice(0, 5), otherCall]);
  await ingestCalls(server, loop.slice(5));
  await ingestCalls(server, storm);
  const raw = await request(server, "POST", "/api/ingest/http", [anthropicExchange, openaiExchange]);
  expect(raw.status, raw.text).toBe(200);
  // a tool that failed, reported against the call that asked for it
  const events = await request(server, "POST", "/api/ingest/events", {
    kind: "tool_result", session_id: session, call_id: ok.call_id, tool_call_id: "tc-failed", name: "bash", arguments: { cmd: "make" }, success: false, error: "make: *** [all] Error 2", at_ns: ns(500),
  });
  expect(events.status, events.text).toBe(200);
  interruptions = await sessionInterruptions(server, session);
});

describe("per-agent spend", () => {
  it("prices every call of the range and counts failed and looping calls as wasted", async () => {
    const reply = await get<Spend>(`/api/spend?agent_name=${agent},${other}`);
    expect(reply.status, reply.text).toBe(200);
    const a = reply.body.agents.find((x) => x.agent_name === agent)!;
    const total = costs.ok + costs.failed + 7 * costs.loopCall + 5 * costs.stormCall + costs.anthropic + costs.openai;
    expect(a.calls).toBe(1 + 1 + 1 + 7 + 5 + 2);
    expect(a.cost_usd).toBeCloseTo(total, 12);
    // the model without a price is named and left out of the sum, not guessed
    expect(a.unpriced_calls).toBe(1);
    expect(a.unpriced_models).toEqual(["mystery-model-7"]);
    // failed: the 500 and the five 429s; loops: the seven calls of the dead loop
    expect(a.failed_calls).toBe(6);
    expect(a.failed_usd).toBeCloseTo(costs.failed + 5 * costs.stormCall, 12);
    expect(a.loop_calls).toBe(7);
    expect(a.loop_usd).toBeCloseTo(7 * costs.loopCall, 12);
    expect(a.wasted_calls).toBe(13);
    expect(a.wasted_usd).toBeCloseTo(a.failed_usd + a.loop_usd, 12);
    const byModel = Object.fromEntries(a.by_model.map((m) => [m.model, m]));
    expect(byModel["gpt-4o-2024-08-06"].price_key).toBe("gpt-4o");
    expect(byModel["claude-sonnet-4-5-20250929"]).toMatchObject({ price_key: "claude-sonnet-4-5", calls: 1 });
    expect(byModel["claude-sonnet-4-5-20250929"].cost_usd).toBeCloseTo(costs.anthropic, 12);
    expect(byModel["mystery-model-7"]).toMatchObject({ price_key: null, cost_usd: null });

    const b = reply.body.agents.find((x) => x.agent_name === other)!;
    expect(b).toMatchObject({ calls: 1, wasted_calls: 0, unpriced_calls: 0 });
    expect(b.cost_usd).toBeCloseTo(1, 12);
    // most expensive first; the totals add the agents up
    expect(reply.body.agents.map((x) => x.agent_name)).toEqual([other, agent]);
    expect(reply.body.total.cost_usd).toBeCloseTo(total + 1, 12);
    expect(reply.body.currency).toBe("USD");
  });

  it("counts only calls that started in the range", async () => {
    // the loop's last two calls and everything after them
    const from = loop[5].start_ns;
    const reply = await get<Spend>(`/api/spend?agent_name=${agent}&start_ns=${from}&end_ns=${storm[1].start_ns}`);
    expect(reply.status, reply.text).toBe(200);
    const [a] = reply.body.agents;
    expect(a.calls).toBe(2 + 2);
    expect(a.loop_calls).toBe(2);
    expect(a.failed_calls).toBe(2);
    expect(a.cost_usd).toBeCloseTo(2 * costs.loopCall + 2 * costs.stormCall, 12);

    const empty = await get<Spend>(`/api/spend?agent_name=${agent}&start_ns=1&end_ns=2`);
    expect(empty.body.agents).toEqual([]);
    expect(empty.body.total).toMatchObject({ calls: 0, cost_usd: 0, wasted_usd: 0 });
  });

  it("answers bad parameters with 400 naming them, and no token with 401", async () => {
    expectError(await get("/api/spend?start_ns=yesterday"), 400, /start_ns/);
    expectError(await get(`/api/spend?start_ns=${ns(1000)}&end_ns=${ns(0)}`), 400, /start_ns/);
    expectError(await get("/api/spend", null), 401);
  });
});

describe("what one thing cost", () => {
  it("a call, with cache tokens read as each provider reports them", async () => {
    const anthropic = await get<{ cost_usd: number; price_key: string; cache_read_tokens: number; cache_write_tokens: number }>(`/api/spend/calls/${anthropicCallId}`);
    expect(anthropic.status, anthropic.text).toBe(200);
    expect(anthropic.body).toMatchObject({ price_key: "claude-sonnet-4-5", cache_read_tokens: 2000, cache_write_tokens: 400 });
    expect(anthropic.body.cost_usd).toBeCloseTo(costs.anthropic, 12);
    const openai = await get<{ cost_usd: number; cache_read_tokens: number; input_tokens: number }>(`/api/spend/calls/${openaiCallId}`);
    expect(openai.body).toMatchObject({ input_tokens: 1000, cache_read_tokens: 600 });
    expect(openai.body.cost_usd).toBeCloseTo(costs.openai, 12);
    const unknown = await get<{ cost_usd: number | null; price_key: string | null }>(`/api/spend/calls/${mystery.call_id}`);
    expect(unknown.body).toMatchObject({ cost_usd: null, price_key: null });
    expectError(await get("/api/spend/calls/no-such-call"), 404, /Call not found/);
  });

  it("an interruption: its failed call, the calls of a dead loop, the failed calls of a retry storm", async () => {
    const single = await get<InterruptionSpend>(`/api/spend/interruptions/${interruption("llm_error").interruption_id}`);
    expect(single.status, single.text).toBe(200);
    expect(single.body).toMatchObject({ basis: "call", calls: 1 });
    expect(single.body.cost_usd).toBeCloseTo(costs.failed, 12);

    const deadLoop = interruption("dead_loop");
    expect(deadLoop.occurrences).toBe(3);
    const looped = await get<InterruptionSpend>(`/api/spend/interruptions/${deadLoop.interruption_id}`);
    expect(looped.body).toMatchObject({ basis: "dead_loop", calls: 7 });
    expect(looped.body.listed_calls.map((c) => c.call_id)).toEqual(loop.map((c) => c.call_id));
    expect(looped.body.cost_usd).toBeCloseTo(7 * costs.loopCall, 12);

    const stormed = await get<InterruptionSpend>(`/api/spend/interruptions/${interruption("retry_storm").interruption_id}`);
    expect(stormed.body).toMatchObject({ basis: "retry_storm", calls: 5 });
    expect(stormed.body.cost_usd).toBeCloseTo(5 * costs.stormCall, 12);

    // a tool's failure is not an LLM call's: it costs nothing of its own
    const tool = await get<InterruptionSpend>(`/api/spend/interruptions/${interruption("tool_failure").interruption_id}`);
    expect(tool.body).toMatchObject({ basis: "none", calls: 0, cost_usd: 0, listed_calls: [] });

    expectError(await get("/api/spend/interruptions/0123456789abcdef0123456789abcdef"), 404, /Interruption not found/);
  });

  it("a session, by model, with unknown prices apart", async () => {
    const reply = await get<Summary & { session_id: string }>(`/api/spend/sessions/${session}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ session_id: session, calls: 17, priced_calls: 16, unpriced_calls: 1, unpriced_models: ["mystery-model-7"] });
    expect(reply.body.cost_usd).toBeCloseTo(costs.ok + costs.failed + 7 * costs.loopCall + 5 * costs.stormCall + costs.anthropic + costs.openai, 12);
    expectError(await get("/api/spend/sessions/no-such-session"), 404, /Session not found/);
  });
});

describe("the price table", () => {
  it("is the shipped defaults with the configured prices on top", async () => {
    const reply = await get<{ unit: string; models: Record<string, { input: number; output: number; cache_read: number; cache_write: number }> }>("/api/spend/prices");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.unit).toBe("per_million_tokens");
    expect(reply.body.models["acme-model"]).toEqual(ACME);
    expect(reply.body.models["gpt-4o"]).toEqual(GPT4O);
    expect(reply.body.models["claude-sonnet-4-5"]).toEqual(SONNET);
    expect(reply.body.models["deepseek-chat"]).toBeDefined();
    expect(reply.body.models["qwen-plus"]).toBeDefined();
  });

  it("is described in the OpenAPI document", async () => {
    const doc = await get<{ paths: Record<string, Record<string, unknown>> }>("/api/openapi.json", null);
    for (const p of ["/api/spend", "/api/spend/prices", "/api/spend/sessions/{id}", "/api/spend/calls/{id}", "/api/spend/interruptions/{id}"]) expect(doc.body.paths[p]?.get, p).toBeDefined();
  });
});
