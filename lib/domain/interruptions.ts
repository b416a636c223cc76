// The vocabulary of interruptions (SPEC §3.1, §4, §5): types and their default severities, the
// severity scale, lifecycle statuses, list sorts and the inbox filter. Declared once here; every
// layer (detection, storage, API, CLI, browser) imports it. Pure data, no I/O.

/** Most severe first. */
export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Higher is more severe (alert thresholds, sorting). */
export const SEVERITY_WEIGHT: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1 };

/** 0 for the most severe; unknown severities after every known one. */
export function severityRank(severity: string): number {
  const i = (SEVERITIES as readonly string[]).indexOf(severity);
  return i < 0 ? SEVERITIES.length : i;
}

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}

export const DEFAULT_SEVERITY = {
  agent_crash: "critical",
  dead_loop: "critical",
  retry_storm: "critical",
  auth_error: "high",
  network_timeout: "high",
  service_unavailable: "high",
  context_overflow: "high",
  sse_truncated: "high",
  empty_response: "high",
  resource_exhaustion: "high",
  state_machine_error: "high",
  llm_error: "high",
  rate_limit: "medium",
  token_limit: "medium",
  safety_filter: "medium",
  slow_response: "medium",
  tool_failure: "medium",
  unauthorized_action: "medium",
} as const satisfies Record<string, Severity>;

export type InterruptionType = keyof typeof DEFAULT_SEVERITY;
export const INTERRUPTION_TYPES = Object.keys(DEFAULT_SEVERITY) as InterruptionType[];

/** Lifecycle of an interruption (SPEC §4); `snoozed` is set aside until its snooze wakes it. */
export const STATUSES = ["open", "acknowledged", "snoozed", "resolved"] as const;
export type Status = (typeof STATUSES)[number];

/** How lists can be ordered; ties are newest first. */
export const SORTS = ["time", "severity", "type", "agent"] as const;
export type Sort = { by: (typeof SORTS)[number]; order: "asc" | "desc" };

/**
 * How the per-session counts can be ranked (beside AgentSight's order): most interruptions
 * first, or the worst severity first.
 */
export const COUNT_SORTS = ["total", "severity"] as const;
export type CountSort = (typeof COUNT_SORTS)[number];

/** What the inbox, the counts and bulk actions select (SPEC §5.1, §5.2). */
export type InterruptionFilter = {
  startNs: bigint;
  endNs: bigint;
  agentNames?: string[];
  types?: string[];
  severities?: string[];
  statuses?: Status[];
  sessionId?: string;
  conversationId?: string;
  q?: string;
  fingerprints?: string[];
  /** `none` for unassigned; `me` is replaced by the caller's name before querying */
  assignees?: string[];
  regressed?: boolean;
  /** stored after this time (createdAtNs): what arrived since a list was read, whenever it occurred */
  arrivedAfterNs?: bigint;
};

/** Interruptions without a session or conversation are counted under this key (SPEC §5.1). */
export const UNASSIGNED = "__unassigned__";

/**
 * Not resolved, in AgentSight's sense (`resolved: false`; the count routes, session badges):
 * snoozed interruptions are set aside, not resolved (SPEC §4).
 */
export const UNRESOLVED_STATUSES: readonly Status[] = ["open", "acknowledged", "snoozed"];

/** The statuses that need someone now: the inbox's unresolved views and alerts leave snoozed out. */
export const ACTIVE_STATUSES: readonly Status[] = ["open", "acknowledged"];

export type SeverityCounts = Record<Severity, number>;

/** A zero count for every severity, most severe first. */
export function emptySeverityCounts(): SeverityCounts {
  return Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as SeverityCounts;
}
