// Rate rules (issue 15): "at least N matching interruptions within M minutes". The pure parts:
// when a rule fires or resolves, the body of those alerts (with the counts), and the link to the
// inbox filtered as the rule filters. The state lives in AlertRuleState (lib/alerts/ruleState.ts).
import { SEVERITIES } from "../domain/interruptions";
import { NS_PER_MS } from "../domain/time";
import { severitiesAtOrAbove, type AlertRule } from "./rules";

export type RateRule = AlertRule & { threshold: number; windowSecs: number };
export type RateState = { state: string; seq: number; firedAtNs: bigint | null };
export type RateCounts = {
  count: number;
  bySeverity: Record<string, number>;
  byType: Record<string, number>;
  byAgent: Record<string, number>;
};

/** Limits of a rule (the API refuses others). */
export const RATE_LIMITS = { minThreshold: 1, maxThreshold: 100_000, minWindowSecs: 60, maxWindowSecs: 7 * 86_400 } as const;
/** How many agents an alert names in its counts (the busiest; the rest are summed under "other agents"). */
export const MAX_AGENTS_LISTED = 10;
export const OTHER_AGENTS = "(other agents)";
export const NO_AGENT = "(no agent)";

const NS_PER_SEC = 1_000_000_000n;

/**
 * What a rule does now. `fire`: the count reached the threshold while the rule was quiet, and it
 * last fired a window or more ago (one fire per window, however the count swings); `resolve`:
 * the count of a firing rule fell below the threshold. Otherwise nothing.
 */
export function rateDecision(state: RateState, count: number, rule: Pick<RateRule, "threshold" | "windowSecs">, nowNs: bigint): "fire" | "resolve" | null {
  if (state.state === "firing") return count < rule.threshold ? "resolve" : null;
  if (count < rule.threshold) return null;
  if (state.firedAtNs !== null && nowNs - state.firedAtNs < BigInt(rule.windowSecs) * NS_PER_SEC) return null;
  return "fire";
}

/** The window that ends at `nowNs`: interruptions that occurred in (start, end] count. */
export function rateWindow(windowSecs: number, nowNs: bigint): { startNs: bigint; endNs: bigint } {
  return { startNs: nowNs - BigInt(windowSecs) * NS_PER_SEC, endNs: nowNs };
}

/** "90 s", "10 min", "2 h", "1 h 30 min" */
export function describeWindow(secs: number): string {
  if (secs < 60 || secs % 60 !== 0) return `${secs} s`;
  const mins = secs / 60;
  if (mins < 60) return `${mins} min`;
  const h = Math.floor(mins / 60);
  const m = mins % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

const iso = (ns: bigint) => new Date(Number(ns / NS_PER_MS)).toISOString();

/** The inbox showing what a rule counts between two times (every status: the rule counts them all). */
export function inboxUrl(base: string, rule: AlertRule, fromNs: bigint, toNs: bigint): string {
  const q = new URLSearchParams({ range: "custom", from: iso(fromNs), to: iso(toNs) });
  const severities = severitiesAtOrAbove(rule.minSeverity);
  if (severities.length < SEVERITIES.length) q.set("severity", severities.join(","));
  if (rule.types.length) q.set("interruption_type", rule.types.join(","));
  if (rule.agents.length) q.set("agent_name", rule.agents.join(","));
  q.set("unresolved", "false");
  return `${base}/inbox?${q.toString()}`;
}

/** Counts per agent, the busiest first; beyond MAX_AGENTS_LISTED summed as OTHER_AGENTS. */
export function topAgents(rows: { agent: string | null; count: number }[]): Record<string, number> {
  const sorted = [...rows].sort((a, b) => b.count - a.count || String(a.agent).localeCompare(String(b.agent)));
  const out: Record<string, number> = {};
  for (const r of sorted.slice(0, MAX_AGENTS_LISTED)) out[r.agent ?? NO_AGENT] = (out[r.agent ?? NO_AGENT] ?? 0) + r.count;
  const rest = sorted.slice(MAX_AGENTS_LISTED).reduce((n, r) => n + r.count, 0);
  if (rest) out[OTHER_AGENTS] = rest;
  return out;
}

export type RatePayloadInput = {
  event: "rate.triggered" | "rate.resolved";
  hook: { id: string; name: string };
  rule: RateRule;
  counts: RateCounts;
  window: { startNs: bigint; endNs: bigint };
  /** the firing this alert opens or closes: its number, when it started, when it ended */
  firing: { number: number; sinceNs: bigint; resolvedAtNs: bigint | null };
  base: string;
};

/**
 * The generic body of a rate alert (the other channels render it). `url` opens the inbox on the
 * rule's filter over the window — for a resolve, from the start of the window that fired to now.
 */
export function ratePayload(p: RatePayloadInput) {
  const from = p.event === "rate.resolved" ? p.firing.sinceNs - BigInt(p.rule.windowSecs) * NS_PER_SEC : p.window.startNs;
  return {
    event: p.event,
    rule: {
      id: p.hook.id,
      name: p.hook.name,
      min_severity: p.rule.minSeverity,
      types: [...p.rule.types],
      agents: [...p.rule.agents],
      threshold: p.rule.threshold,
      window_secs: p.rule.windowSecs,
    },
    count: p.counts.count,
    window: { start_ns: p.window.startNs, end_ns: p.window.endNs },
    by_severity: p.counts.bySeverity,
    by_type: p.counts.byType,
    by_agent: p.counts.byAgent,
    firing: { number: p.firing.number, since_ns: p.firing.sinceNs, resolved_at_ns: p.firing.resolvedAtNs },
    url: inboxUrl(p.base, p.rule, from, p.window.endNs),
  };
}

export type RatePayload = ReturnType<typeof ratePayload>;
