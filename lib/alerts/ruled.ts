// A webhook row with its rule read out of the stored columns (lists as JSON, rate fields nullable).
import type { Webhook } from "../db/generated/client";
import type { RateRule } from "./rate";
import { parseList, type AlertRule, type RuleKind } from "./rules";

export type RuledHook = Webhook & { ruleKind: RuleKind; filter: AlertRule; rate: RateRule | null };

export function ruled(w: Webhook): RuledHook {
  const filter: AlertRule = { minSeverity: w.minSeverity as AlertRule["minSeverity"], types: parseList(w.types), agents: parseList(w.agents) };
  const isRate = w.rule === "rate" && w.rateThreshold !== null && w.rateWindowSecs !== null;
  return {
    ...w,
    ruleKind: isRate ? "rate" : "each",
    filter,
    rate: isRate ? { ...filter, threshold: w.rateThreshold!, windowSecs: w.rateWindowSecs! } : null,
  };
}
