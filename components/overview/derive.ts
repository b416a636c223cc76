// Pure shaping of API results into what the overview panels list.
import type { SeverityCounts, TypeCount } from "@/components/api/types";
import { SEVERITIES, severityRank } from "@/lib/domain/interruptions";
import { NS_PER_MS } from "@/lib/domain/time";
import type { SessionSummary } from "@/components/sessions/types";
import type { AgentCount, SeriesResponse, SessionCount } from "./queries";

export const UNASSIGNED = "__unassigned__";

const emptyCounts = () => Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as SeverityCounts;

function addCounts(into: SeverityCounts, from: Partial<Record<string, number>>) {
  for (const s of SEVERITIES) into[s] += from[s] ?? 0;
}

/** The most severe non-zero severity of some counts. */
export function worstSeverity(counts: SeverityCounts): string | null {
  return SEVERITIES.find((s) => counts[s] > 0) ?? null;
}

export type TypeRow = { type: string; count: number; by_severity: SeverityCounts; severity: string };

/** `/stats` rows folded per type (a type can carry several severities after overrides). */
export function topTypes(stats: TypeCount[]): TypeRow[] {
  const byType = new Map<string, TypeRow>();
  for (const s of stats) {
    let row = byType.get(s.interruption_type);
    if (!row) byType.set(s.interruption_type, (row = { type: s.interruption_type, count: 0, by_severity: emptyCounts(), severity: s.severity }));
    row.count += s.count;
    if (s.severity in row.by_severity) row.by_severity[s.severity as keyof SeverityCounts] += s.count;
    if (severityRank(s.severity) < severityRank(row.severity)) row.severity = s.severity;
  }
  return [...byType.values()].sort((a, b) => b.count - a.count || severityRank(a.severity) - severityRank(b.severity) || a.type.localeCompare(b.type));
}

export type AgentRow = { agent: string; count: number; by_severity: SeverityCounts; sessions: number };
export type AgentTotals = { rows: AgentRow[]; unattributed: number };

/**
 * Unresolved counts per agent (`/agent-counts`, most first). Interruptions that name no agent
 * are returned as `unattributed`.
 */
export function topAgents(counts: AgentCount[]): AgentTotals {
  let unattributed = 0;
  const rows: AgentRow[] = [];
  for (const c of counts) {
    if (c.agent_name === null) unattributed += c.total;
    else rows.push({ agent: c.agent_name, count: c.total, by_severity: c.by_severity, sessions: c.sessions });
  }
  rows.sort((a, b) => b.count - a.count || compareSeverities(a.by_severity, b.by_severity) || a.agent.localeCompare(b.agent));
  return { rows, unattributed };
}

/** More critical first, then more high, … (for ties in totals). */
export function compareSeverities(a: SeverityCounts, b: SeverityCounts): number {
  for (const s of SEVERITIES) if (a[s] !== b[s]) return b[s] - a[s];
  return 0;
}

export type SessionRow = SessionCount & { agent: string | null };

/**
 * The sessions with the most unresolved interruptions in the window, in the server's order
 * (`sort=total`: most first, the more severe first on ties), each named by its agent.
 */
export function topSessions(counts: SessionCount[], sessions: SessionSummary[]): SessionRow[] {
  const agentOf = new Map(sessions.map((s) => [s.session_id, s.agent_name]));
  return counts.filter((c) => c.session_id !== UNASSIGNED).map((c) => ({ ...c, agent: agentOf.get(c.session_id) ?? null }));
}

export type ChartPoint = { t: number; total: number } & SeverityCounts;

/** Timeseries buckets as chart rows (bucket start in epoch ms). */
export function chartPoints(series: SeriesResponse): ChartPoint[] {
  return series.buckets.map((b) => {
    const counts = emptyCounts();
    addCounts(counts, b.counts);
    return { t: Number(BigInt(b.start_ns) / NS_PER_MS), ...counts, total: SEVERITIES.reduce((n, s) => n + counts[s], 0) };
  });
}

export function seriesTotals(points: ChartPoint[]): SeverityCounts {
  const totals = emptyCounts();
  for (const p of points) addCounts(totals, p);
  return totals;
}
