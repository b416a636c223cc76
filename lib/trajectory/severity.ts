// The worst of some severities, by lib/domain's weights (SPEC §3.1).
import { SEVERITY_WEIGHT } from "../domain/interruptions";

const WEIGHT: Record<string, number> = SEVERITY_WEIGHT;

export const severityWeight = (s: string | null | undefined): number => (s ? WEIGHT[s] ?? 0 : 0);

/** The most severe of some severities, or null for none. */
export function worstSeverity(list: Iterable<string>): string | null {
  let worst: string | null = null;
  for (const s of list) if (severityWeight(s) > severityWeight(worst)) worst = s;
  return worst;
}
