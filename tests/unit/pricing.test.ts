// Model prices (lib/domain/pricing.ts) and their configuration key `pricing.models`
// (lib/config/load.ts): name normalization, longest-prefix matching, the cost of token counts
// with and without cache tokens inside the input count, and overrides that name the key at fault.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@/lib/config/load";
import { costOf, DEFAULT_PRICES, findPrice, mergePrices, normalizeModel, priceUsage, type PriceTable } from "@/lib/domain/pricing";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-pricing-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (value: unknown) => {
  const f = path.join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(f, JSON.stringify(value));
  return f;
};
const env = (vars: Record<string, string> = {}) => ({ ...vars }) as NodeJS.ProcessEnv;
const keyOf = (model: string | null) => findPrice(DEFAULT_PRICES, model)?.key ?? null;

describe("model names", () => {
  it("drop provider paths, Bedrock vendor prefixes and case; Claude's dotted versions become dashes", () => {
    expect(normalizeModel("  GPT-4o ")).toBe("gpt-4o");
    expect(normalizeModel("anthropic/claude-3.5-sonnet")).toBe("claude-3-5-sonnet");
    expect(normalizeModel("openai/gpt-4o-mini")).toBe("gpt-4o-mini");
    expect(normalizeModel("us.anthropic.claude-3-5-sonnet-20241022-v2:0")).toBe("claude-3-5-sonnet-20241022-v2:0");
    expect(normalizeModel("anthropic.claude-sonnet-4-5-20250929-v1:0")).toBe("claude-sonnet-4-5-20250929-v1:0");
    expect(normalizeModel("models/qwen-plus")).toBe("qwen-plus");
    // dots stay in other names: they are part of the version
    expect(normalizeModel("qwen2.5-72b-instruct")).toBe("qwen2.5-72b-instruct");
  });

  it("find the longest table key that the name starts with, at a suffix boundary", () => {
    expect(keyOf("gpt-4o-2024-08-06")).toBe("gpt-4o");
    expect(keyOf("gpt-4o-mini-2024-07-18")).toBe("gpt-4o-mini");
    // a dated model priced apart from its family wins over the family
    expect(keyOf("gpt-4o-2024-05-13")).toBe("gpt-4o-2024-05-13");
    expect(keyOf("gpt-4.1-2025-04-14")).toBe("gpt-4.1");
    expect(keyOf("gpt-4.1-mini")).toBe("gpt-4.1-mini");
    expect(keyOf("o1-mini-2024-09-12")).toBe("o1-mini");
    expect(keyOf("claude-3-5-sonnet-20241022")).toBe("claude-3-5-sonnet");
    expect(keyOf("claude-3-5-sonnet-latest")).toBe("claude-3-5-sonnet");
    expect(keyOf("claude-sonnet-4-5-20250929")).toBe("claude-sonnet-4-5");
    expect(keyOf("claude-sonnet-4-20250514")).toBe("claude-sonnet-4");
    expect(keyOf("claude-opus-4-5@20251101")).toBe("claude-opus-4-5");
    expect(keyOf("anthropic/claude-sonnet-4.5")).toBe("claude-sonnet-4-5");
    expect(keyOf("us.anthropic.claude-3-7-sonnet-20250219-v1:0")).toBe("claude-3-7-sonnet");
    expect(keyOf("qwen-plus-2025-07-28")).toBe("qwen-plus");
    expect(keyOf("qwen-max-latest")).toBe("qwen-max");
    expect(keyOf("qwen3-max")).toBe("qwen3-max");
    expect(keyOf("deepseek-chat")).toBe("deepseek-chat");
    expect(keyOf("deepseek/deepseek-reasoner")).toBe("deepseek-reasoner");
  });

  it("leave a model unknown rather than price it as a relative", () => {
    // gpt-4 must not price gpt-4.5 or gpt-4o-like names it does not know
    expect(keyOf("gpt-4.5-preview")).toBeNull();
    expect(keyOf("gpt-4z")).toBeNull();
    expect(keyOf("qwen2-72b-instruct")).toBeNull();
    expect(keyOf("deepseek-ai/DeepSeek-V3")).toBeNull();
    expect(keyOf("llama-3.1-70b")).toBeNull();
    expect(keyOf("")).toBeNull();
    expect(keyOf(null)).toBeNull();
  });
});

describe("cost of tokens", () => {
  const price = { input: 2, output: 10, cache_read: 0.5, cache_write: 2.5 };

  it("prices each kind of token per million", () => {
    expect(costOf({ input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 }, price, "openai")).toBeCloseTo(2, 10);
    expect(costOf({ input: 0, output: 500_000, cacheRead: 0, cacheWrite: 0 }, price, "openai")).toBeCloseTo(5, 10);
  });

  it("takes cached tokens out of the input count where the provider counts them in it (OpenAI-style)", () => {
    // 1,000 prompt tokens of which 800 were cache hits: 200 at the input price, 800 at the cache price
    const openai = costOf({ input: 1000, output: 100, cacheRead: 800, cacheWrite: 0 }, price, "openai");
    expect(openai).toBeCloseTo((200 * 2 + 800 * 0.5 + 100 * 10) / 1e6, 12);
    // never negative when a sender's counts disagree
    expect(costOf({ input: 100, output: 0, cacheRead: 800, cacheWrite: 0 }, price, "deepseek")).toBeCloseTo((800 * 0.5) / 1e6, 12);
  });

  it("adds cache tokens to the input count for Anthropic, which reports them beside it", () => {
    const anthropic = costOf({ input: 1000, output: 100, cacheRead: 800, cacheWrite: 300 }, price, "anthropic");
    expect(anthropic).toBeCloseTo((1000 * 2 + 800 * 0.5 + 300 * 2.5 + 100 * 10) / 1e6, 12);
  });

  it("sums usage by model and keeps models without a price apart", () => {
    const table: PriceTable = { "gpt-4o": { input: 2.5, output: 10, cache_read: 1.25, cache_write: 2.5 } };
    const s = priceUsage(table, [
      { model: "gpt-4o-2024-08-06", provider: "openai", calls: 3, input: 3000, output: 300, cacheRead: 0, cacheWrite: 0 },
      { model: "gpt-4o-2024-08-06", provider: "openai-compatible", calls: 1, input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 },
      { model: "my-finetune", provider: "openai", calls: 2, input: 5000, output: 50, cacheRead: 0, cacheWrite: 0 },
      { model: null, provider: null, calls: 1, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    ]);
    expect(s.calls).toBe(7);
    expect(s.priced_calls).toBe(4);
    expect(s.unpriced_calls).toBe(3);
    expect(s.unpriced_models.sort()).toEqual(["(no model)", "my-finetune"]);
    expect(s.cost_usd).toBeCloseTo((4000 * 2.5 + 400 * 10) / 1e6, 12);
    const gpt = s.by_model.find((m) => m.model === "gpt-4o-2024-08-06")!;
    expect(gpt).toMatchObject({ price_key: "gpt-4o", calls: 4, input_tokens: 4000, output_tokens: 400 });
    expect(s.by_model.find((m) => m.model === "my-finetune")).toMatchObject({ price_key: null, cost_usd: null, calls: 2 });
  });

  it("merges overrides over the defaults by normalized key; null removes a default", () => {
    const t = mergePrices(DEFAULT_PRICES, { "GPT-4o": { input: 1, output: 1, cache_read: 1, cache_write: 1 }, "qwen-plus": null, "acme/Local-70B": { input: 0.1, output: 0.2, cache_read: 0.1, cache_write: 0.1 } });
    expect(t["gpt-4o"].input).toBe(1);
    expect(t["qwen-plus"]).toBeUndefined();
    expect(findPrice(t, "qwen-plus-latest")).toBeNull();
    expect(findPrice(t, "local-70b-q4")?.key).toBe("local-70b");
    expect(t["gpt-4o-mini"]).toEqual(DEFAULT_PRICES["gpt-4o-mini"]);
  });
});

describe("pricing.models configuration", () => {
  it("ships the defaults", () => {
    expect(loadConfig({ env: env(), file: null }).pricing).toEqual(DEFAULT_PRICES);
  });

  it("reads overrides from the file (nested or dotted), cache prices defaulting to the input price", () => {
    const nested = loadConfig({ env: env(), file: file({ pricing: { models: { "gpt-4o": { input: 1, output: 4 }, "my-model": { input: 0.5, output: 1, cache_read: 0.05 } } } }) });
    expect(nested.pricing["gpt-4o"]).toEqual({ input: 1, output: 4, cache_read: 1, cache_write: 1 });
    expect(nested.pricing["my-model"]).toEqual({ input: 0.5, output: 1, cache_read: 0.05, cache_write: 0.5 });
    const dotted = loadConfig({ env: env(), file: file({ "pricing.models": { "qwen-plus": null } }) });
    expect(dotted.pricing["qwen-plus"]).toBeUndefined();
  });

  it("reads JSON text from SIGHTDESK_PRICING__MODELS, over the file", () => {
    const c = loadConfig({
      env: env({ SIGHTDESK_PRICING__MODELS: '{"gpt-4o": {"input": 3, "output": 9}}' }),
      file: file({ pricing: { models: { "gpt-4o": { input: 1, output: 4 } } } }),
    });
    expect(c.pricing["gpt-4o"]).toEqual({ input: 3, output: 9, cache_read: 3, cache_write: 3 });
    expect(c.source.env).toContain("pricing.models");
  });

  it("names the key and the model at fault", () => {
    const bad = (value: unknown) => () => loadConfig({ env: env(), file: file({ pricing: { models: value } }) });
    expect(bad({ "gpt-4o": { input: -1, output: 1 } })).toThrow(/pricing\.models\["gpt-4o"\]\.input: must not be negative/);
    expect(bad({ "gpt-4o": { input: "cheap", output: 1 } })).toThrow(/pricing\.models\["gpt-4o"\]\.input: expected a number/);
    expect(bad({ "gpt-4o": { input: 1 } })).toThrow(/pricing\.models\["gpt-4o"\]\.output/);
    expect(bad({ "gpt-4o": { input: 1, output: 1, cached: 1 } })).toThrow(/pricing\.models\["gpt-4o"\]: .*cached/i);
    expect(bad([1, 2])).toThrow(ConfigError);
    expect(() => loadConfig({ env: env({ SIGHTDESK_PRICING__MODELS: "{not json" }), file: null })).toThrow(/pricing\.models: expected JSON text .*SIGHTDESK_PRICING__MODELS/);
  });
});
