// What calls cost (USD), priced when read from their token counts and the price table
// (`pricing.models`): spend and wasted spend per agent, a session's, a call's, an interruption's.
import { z } from "zod";
import { contract } from "../contract";
import { csv, nsParam } from "./params";
import type { ResponseOf } from "./wire";
import { NS_PER_HOUR, nowNs } from "../../domain/time";

const tag = "spend";
const ns = z.int();
const usd = z.number().describe("US dollars");
const count = z.int();

const modelCost = z.object({
  model: z.string().nullable(),
  price_key: z.string().nullable().describe("the price-table row the model matched (longest prefix); null: unknown price"),
  calls: count,
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  cost_usd: usd.nullable().describe("null when the model has no price"),
});

const costSummary = {
  currency: z.literal("USD"),
  calls: count,
  priced_calls: count,
  unpriced_calls: count.describe("calls of models without a price: not in cost_usd"),
  unpriced_models: z.array(z.string()),
  cost_usd: usd.describe("of the priced calls"),
  by_model: z.array(modelCost),
};

const callCost = z.object({
  call_id: z.string(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  price_key: z.string().nullable(),
  cost_usd: usd.nullable(),
});

const agentSpend = z.object({
  agent_name: z.string().nullable(),
  calls: count,
  priced_calls: count,
  unpriced_calls: count,
  unpriced_models: z.array(z.string()),
  cost_usd: usd,
  wasted_calls: count.describe("calls that ended in an interruption (failed or cut off) plus the calls of dead loops"),
  wasted_usd: usd,
  wasted_unpriced_calls: count,
  failed_calls: count,
  failed_usd: usd,
  loop_calls: count.describe("dead-loop calls that did not also fail"),
  loop_usd: usd,
  by_model: z.array(modelCost),
});

const totals = z.object({ calls: count, cost_usd: usd, unpriced_calls: count, wasted_calls: count, wasted_usd: usd, wasted_unpriced_calls: count });

export const spendByAgent = contract({
  method: "GET", path: "/api/spend", tag, scope: "read",
  query: z
    .object({ start_ns: nsParam.optional(), end_ns: nsParam.optional(), agent_name: csv.optional() })
    .transform((q, ctx) => {
      const endNs = q.end_ns ?? nowNs();
      const startNs = q.start_ns ?? endNs - 24n * NS_PER_HOUR;
      if (startNs > endNs) ctx.addIssue({ code: "custom", path: ["start_ns"], message: "must not be after end_ns" });
      return { startNs, endNs, agentNames: q.agent_name };
    }),
  response: z.object({ start_ns: ns, end_ns: ns, currency: z.literal("USD"), total: totals, agents: z.array(agentSpend) }),
  summary: "Spend and wasted spend per agent over a range (default the last 24 h), for calls that started in it; most expensive first.",
});

export const prices = contract({
  method: "GET", path: "/api/spend/prices", tag, scope: "read",
  response: z.object({
    currency: z.literal("USD"),
    unit: z.literal("per_million_tokens"),
    models: z.record(z.string(), z.object({ input: usd, output: usd, cache_read: usd, cache_write: usd })),
  }),
  summary: "The price table in force: the shipped defaults with `pricing.models` from the configuration on top.",
});

export const sessionSpend = contract({
  method: "GET", path: "/api/spend/sessions/{id}", tag, scope: "read",
  response: z.object({ session_id: z.string(), ...costSummary }),
  summary: "What a session's calls cost, by model.",
});

export const callSpend = contract({
  method: "GET", path: "/api/spend/calls/{id}", tag, scope: "read",
  response: callCost.extend({ currency: z.literal("USD") }),
  summary: "What one call cost.",
});

export const interruptionSpend = contract({
  method: "GET", path: "/api/spend/interruptions/{id}", tag, scope: "read",
  response: z.object({
    interruption_id: z.string(),
    basis: z.enum(["call", "dead_loop", "retry_storm", "none"]).describe("call: its call; dead_loop: the calls of the loop; retry_storm: the failed calls it groups; none: no LLM call of its own (crash, unsettled turn, a tool's failure)"),
    ...costSummary,
    listed_calls: z.array(callCost).describe("the first 200 of those calls, oldest first"),
  }),
  summary: "What an interruption cost: its call, or the calls of a dead loop or retry storm.",
});

export type SpendByAgent = ResponseOf<typeof spendByAgent>;
export type AgentSpendRecord = SpendByAgent["agents"][number];
export type SessionSpend = ResponseOf<typeof sessionSpend>;
export type InterruptionSpend = ResponseOf<typeof interruptionSpend>;
export type CallSpend = ResponseOf<typeof callSpend>;
export type PriceList = ResponseOf<typeof prices>;
