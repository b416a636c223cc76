// Severity order (SPEC §3.1 weights: critical 4, high 3, medium 2, low 1).
export const SEVERITIES = ["critical", "high", "medium", "low"] as const;

const WEIGHT: Record<string, number> = { critical: 4, high: 3, medium: 2, low: 1 };

export const severityWeight = (s: string | null | undefined): number => (s ? WEIGHT[s] ?? 0 : 0);

/** The most severe of some severities, or null for none. */
export function worstSeverity(list: Iterable<string>): string | null {
  let worst: string | null = null;
  for (const s of list) if (severityWeight(s) > severityWeight(worst)) worst = s;
  return worst;
}
