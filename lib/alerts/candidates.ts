// Which interruptions may alert at all. Every alert query — the scan for new interruptions and
// the count of a rate rule — narrows its own filter through `alertable`, so what keeps
// interruptions from alerting (snoozed, muted on arrival) is said here, once, for every rule kind.
import type { Prisma } from "../db/generated/client";
import { IMPORT_ACTOR } from "../import/agentsightMap";
import { severitiesAtOrAbove, type AlertRule } from "./rules";

type Where = Prisma.InterruptionWhereInput;

/** `where`, and whatever keeps an interruption from alerting: it is snoozed (or arrived muted, SPEC §4), or an import brought it in resolved. */
export function alertable(where: Where): Where {
  // history an import brings in resolved already is no news to alert on
  return { AND: [where, { status: { not: "snoozed" } }, { OR: [{ resolvedBy: null }, { resolvedBy: { not: IMPORT_ACTOR } }] }] };
}

/** A rule's severity, type and agent filter as a query (empty lists: every type / agent). */
export function ruleWhere(rule: AlertRule): Where {
  return {
    severity: { in: severitiesAtOrAbove(rule.minSeverity) },
    ...(rule.types.length ? { type: { in: [...rule.types] } } : {}),
    ...(rule.agents.length ? { agentName: { in: [...rule.agents] } } : {}),
  };
}
