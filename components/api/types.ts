// Shapes of API responses as the browser sees them (`*_ns` values are exact digit strings).
export type Ns = string;

export type InterruptionRecord = {
  interruption_id: string;
  session_id: string | null;
  trace_id: string | null;
  conversation_id: string | null;
  call_id: string | null;
  pid: number | null;
  agent_name: string | null;
  interruption_type: string;
  severity: "critical" | "high" | "medium" | "low";
  occurred_at_ns: Ns;
  detail: string;
  resolved: boolean;
  status: "open" | "acknowledged" | "resolved";
  assignee: string | null;
  acknowledged_by: string | null;
  resolved_by: string | null;
  resolved_at_ns: Ns | null;
  occurrences: number;
  last_seen_ns: Ns;
  fingerprint: string;
  /** its fingerprint had been resolved before it occurred */
  regressed: boolean;
};

export type SeverityCounts = { critical: number; high: number; medium: number; low: number };
export type TypeCount = { interruption_type: string; severity: string; count: number };
