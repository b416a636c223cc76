// What LLM calls cost: a price table per model (USD per million tokens), how a call's model name
// finds its row, and the cost of token counts. Pure: the configuration supplies overrides
// (lib/config/load.ts, `pricing.models`), the database supplies summed token counts
// (lib/db/queries/spend.ts). Costs are computed when read, so a changed price reprices history.

/** USD per million tokens. `cache_read`: input served from the provider's prompt cache; `cache_write`: input written to it. */
export type ModelPrice = { input: number; output: number; cache_read: number; cache_write: number };

/** Normalized model-name prefix → price. */
export type PriceTable = Record<string, ModelPrice>;

// Providers' list prices (standard tier, USD per 1M tokens) as published in late 2025. OpenAI
// and DeepSeek charge nothing extra to write their caches (cache_write = input); Anthropic writes
// at 1.25 × input (5-minute cache) and reads at 0.1 ×; DashScope bills implicit cache hits at
// 20 % of input. Override or extend them in the configuration (`pricing.models`).
const p = (input: number, output: number, cache_read = input, cache_write = input): ModelPrice => ({ input, output, cache_read, cache_write });
const claude = (input: number, output: number): ModelPrice => p(input, output, round(input * 0.1), round(input * 1.25));
const qwen = (input: number, output: number): ModelPrice => p(input, output, round(input * 0.2));

export const DEFAULT_PRICES: PriceTable = {
  // OpenAI
  "gpt-5": p(1.25, 10, 0.125),
  "gpt-5-pro": p(15, 120),
  "gpt-5-mini": p(0.25, 2, 0.025),
  "gpt-5-nano": p(0.05, 0.4, 0.005),
  "gpt-4.1": p(2, 8, 0.5),
  "gpt-4.1-mini": p(0.4, 1.6, 0.1),
  "gpt-4.1-nano": p(0.1, 0.4, 0.025),
  "gpt-4o": p(2.5, 10, 1.25),
  "gpt-4o-2024-05-13": p(5, 15),
  "gpt-4o-mini": p(0.15, 0.6, 0.075),
  "gpt-4-turbo": p(10, 30),
  "gpt-4-1106-preview": p(10, 30),
  "gpt-4-0125-preview": p(10, 30),
  "gpt-4": p(30, 60),
  "gpt-4-32k": p(60, 120),
  "gpt-3.5-turbo": p(0.5, 1.5),
  o1: p(15, 60, 7.5),
  "o1-mini": p(1.1, 4.4, 0.55),
  "o1-pro": p(150, 600),
  o3: p(2, 8, 0.5),
  "o3-pro": p(20, 80),
  "o3-mini": p(1.1, 4.4, 0.55),
  "o4-mini": p(1.1, 4.4, 0.275),
  // Anthropic
  "claude-opus-4-5": claude(5, 25),
  "claude-opus-4-1": claude(15, 75),
  "claude-opus-4": claude(15, 75),
  "claude-sonnet-4-5": claude(3, 15),
  "claude-sonnet-4": claude(3, 15),
  "claude-haiku-4-5": claude(1, 5),
  "claude-3-7-sonnet": claude(3, 15),
  "claude-3-5-sonnet": claude(3, 15),
  "claude-3-5-haiku": claude(0.8, 4),
  "claude-3-opus": claude(15, 75),
  "claude-3-sonnet": claude(3, 15),
  "claude-3-haiku": p(0.25, 1.25, 0.03, 0.3),
  // Qwen (Alibaba Cloud Model Studio / DashScope, international)
  "qwen3-max": qwen(1.2, 6),
  "qwen3-coder-plus": qwen(1, 5),
  "qwen3-coder-flash": qwen(0.3, 1.5),
  "qwen-max": qwen(1.6, 6.4),
  "qwen-plus": qwen(0.4, 1.2),
  "qwen-turbo": qwen(0.05, 0.2),
  "qwen-flash": qwen(0.05, 0.4),
  "qwq-plus": qwen(0.8, 2.4),
  "qwen2.5-72b-instruct": p(1.4, 5.6),
  // DeepSeek (V3.2 pricing; cache hits are input served from its disk cache)
  "deepseek-chat": p(0.28, 0.42, 0.028),
  "deepseek-reasoner": p(0.28, 0.42, 0.028),
};

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

// Bedrock-style ids put the vendor (and a region) before the model: us.anthropic.claude-…
const VENDOR_PREFIX = /^(?:(?:us|eu|apac|global|[a-z]{2})\.)?(?:anthropic|openai|meta|deepseek|qwen|alibaba|amazon|mistral|cohere)\./;

/**
 * The comparable form of a model name: lower case, without a provider path (`anthropic/claude-…`,
 * `models/…`) or a Bedrock vendor prefix (`us.anthropic.`), Claude's dotted versions as dashes
 * (`claude-3.5-sonnet` → `claude-3-5-sonnet`, as OpenRouter spells them).
 */
export function normalizeModel(model: string): string {
  let name = model.trim().toLowerCase();
  name = name.slice(name.lastIndexOf("/") + 1);
  name = name.replace(VENDOR_PREFIX, "");
  if (name.startsWith("claude")) name = name.replace(/(\d)\.(\d)/g, "$1-$2");
  return name;
}

/** Characters after which a dated or variant suffix starts (gpt-4o-2024-08-06, …-v2:0, …@20241022). Not ".": qwen2 is not qwen2.5. */
const BOUNDARY = new Set(["-", "_", ":", "@"]);

/**
 * The table row for `model`: the longest key that is the whole normalized name or a prefix of it
 * ending at a suffix boundary. Null when the model is unknown (or not given).
 */
export function findPrice(table: PriceTable, model: string | null | undefined): { key: string; price: ModelPrice } | null {
  if (!model) return null;
  const name = normalizeModel(model);
  let best: string | null = null;
  for (const key of Object.keys(table)) {
    if (best !== null && key.length <= best.length) continue;
    if (name === key || (name.startsWith(key) && BOUNDARY.has(name[key.length]))) best = key;
  }
  return best === null ? null : { key: best, price: table[best] };
}

/** Token counts of one call, or summed over many calls of one model and provider. */
export type TokenCounts = { input: number; output: number; cacheRead: number; cacheWrite: number };

/**
 * Whether the provider reports input tokens *beside* the cache tokens (Anthropic: input_tokens
 * excludes cache reads and writes) rather than including them (OpenAI, DeepSeek, DashScope and
 * OpenAI-compatible gateways: cached tokens are part of prompt_tokens).
 */
export function cacheExcludedFromInput(provider: string | null | undefined): boolean {
  return (provider ?? "").toLowerCase().includes("anthropic");
}

/** USD for `t` at `price`. */
export function costOf(t: TokenCounts, price: ModelPrice, provider: string | null | undefined): number {
  const uncached = cacheExcludedFromInput(provider) ? t.input : Math.max(0, t.input - t.cacheRead - t.cacheWrite);
  return (uncached * price.input + t.cacheRead * price.cache_read + t.cacheWrite * price.cache_write + t.output * price.output) / 1_000_000;
}

/** Summed usage of some calls of one model (and provider), as the spend queries return it. */
export type UsageRow = TokenCounts & { model: string | null; provider: string | null; calls: number };

export type ModelCost = {
  model: string | null;
  /** the price table key it matched, or null: unknown price */
  price_key: string | null;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** null when the price is unknown */
  cost_usd: number | null;
};

export type CostSummary = {
  calls: number;
  /** the calls whose model has a price */
  priced_calls: number;
  /** calls of models without a price (their cost is not in cost_usd) */
  unpriced_calls: number;
  unpriced_models: string[];
  /** of the priced calls */
  cost_usd: number;
  by_model: ModelCost[];
};

/** Prices usage rows and sums them (rows of one model with different providers merge). */
export function priceUsage(table: PriceTable, rows: readonly UsageRow[]): CostSummary {
  const byModel = new Map<string, ModelCost>();
  let calls = 0;
  let priced = 0;
  let cost = 0;
  for (const r of rows) {
    const hit = findPrice(table, r.model);
    const c = hit ? costOf(r, hit.price, r.provider) : null;
    const key = r.model ?? "";
    let m = byModel.get(key);
    if (!m) {
      m = { model: r.model, price_key: hit?.key ?? null, calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: hit ? 0 : null };
      byModel.set(key, m);
    }
    m.calls += r.calls;
    m.input_tokens += r.input;
    m.output_tokens += r.output;
    m.cache_read_tokens += r.cacheRead;
    m.cache_write_tokens += r.cacheWrite;
    calls += r.calls;
    if (c !== null) {
      m.cost_usd = (m.cost_usd ?? 0) + c;
      priced += r.calls;
      cost += c;
    }
  }
  const by_model = [...byModel.values()].sort((a, b) => (b.cost_usd ?? -1) - (a.cost_usd ?? -1) || b.calls - a.calls);
  const unpriced = by_model.filter((m) => m.cost_usd === null);
  return {
    calls,
    priced_calls: priced,
    unpriced_calls: calls - priced,
    unpriced_models: unpriced.map((m) => m.model ?? "(no model)"),
    cost_usd: cost,
    by_model,
  };
}

/** The defaults with `overrides` on top: a key's row is replaced whole; null removes a default. Keys are normalized. */
export function mergePrices(defaults: PriceTable, overrides: Record<string, ModelPrice | null>): PriceTable {
  const out: PriceTable = { ...defaults };
  for (const [model, price] of Object.entries(overrides)) {
    const key = normalizeModel(model);
    if (price === null) delete out[key];
    else out[key] = price;
  }
  return out;
}

/**
 * The interruption types whose call is wasted spend: the call failed (every per-call failure
 * type) or its answer was cut off (token_limit). Not slow_response (the answer arrived), not
 * tool results (the call itself worked) or crashes (no call). Dead loops count their calls apart.
 */
export const WASTED_CALL_TYPES = [
  "context_overflow",
  "auth_error",
  "resource_exhaustion",
  "rate_limit",
  "network_timeout",
  "service_unavailable",
  "safety_filter",
  "state_machine_error",
  "llm_error",
  "sse_truncated",
  "empty_response",
  "token_limit",
] as const;

/**
 * The interruption types that are about one LLM call, whose cost is that call's. Tool results
 * (tool_failure, unauthorized_action) name the call that reported them, which did not fail.
 */
export const CALL_COST_TYPES: readonly string[] = [...WASTED_CALL_TYPES, "slow_response"];
