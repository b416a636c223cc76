// The 18 interruption types of SPEC §3.1 and their default severities.

export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const SEVERITY_WEIGHT: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1 };

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

/** What a rule found: a type and its evidence (the record's `detail`). */
export type Finding = { type: InterruptionType; detail: Record<string, unknown> };
