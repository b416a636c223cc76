// The inbox view lives in the URL (nuqs): filters, sort and how many pages are loaded, so a
// copied link reopens the same view. This module maps that URL state to the API's query values.
import {
  parseAsArrayOf,
  parseAsBoolean,
  parseAsInteger,
  parseAsIsoDateTime,
  parseAsString,
  parseAsStringLiteral,
  useQueryStates,
  type Values,
} from "nuqs";
import { INTERRUPTION_TYPES, SEVERITIES } from "@/lib/detect/types";

export { INTERRUPTION_TYPES, SEVERITIES };
export const STATUSES = ["open", "acknowledged", "resolved"] as const;
export const SORTS = ["time", "severity", "type", "agent"] as const;
export const RANGES = ["1h", "24h", "7d", "custom"] as const;

export type SortKey = (typeof SORTS)[number];
export type Range = (typeof RANGES)[number];

export const PAGE_SIZE = 50;

const HOUR_NS = 3_600_000_000_000n;
const RANGE_NS: Record<Exclude<Range, "custom">, bigint> = { "1h": HOUR_NS, "24h": 24n * HOUR_NS, "7d": 7n * 24n * HOUR_NS };

export const inboxParsers = {
  range: parseAsStringLiteral(RANGES).withDefault("24h"),
  from: parseAsIsoDateTime,
  to: parseAsIsoDateTime,
  type: parseAsArrayOf(parseAsStringLiteral(INTERRUPTION_TYPES)).withDefault([]),
  severity: parseAsArrayOf(parseAsStringLiteral(SEVERITIES)).withDefault([]),
  agent: parseAsArrayOf(parseAsString).withDefault([]),
  status: parseAsArrayOf(parseAsStringLiteral(STATUSES)).withDefault([]),
  unresolved: parseAsBoolean.withDefault(true),
  q: parseAsString.withDefault(""),
  sort: parseAsStringLiteral(SORTS).withDefault("time"),
  order: parseAsStringLiteral(["asc", "desc"] as const).withDefault("desc"),
  pages: parseAsInteger.withDefault(1),
  group: parseAsBoolean.withDefault(false),
};

export type InboxParams = Values<typeof inboxParsers>;

/** URL names that match the REST API's (so links from other pages and the API read the same). */
export const inboxUrlKeys = { type: "interruption_type", agent: "agent_name" } as const;

export function useInboxParams() {
  return useQueryStates(inboxParsers, { history: "push", urlKeys: inboxUrlKeys });
}

/** The parts of the view that choose *which* interruptions match (not how they are ordered). */
export function filterKey(p: InboxParams): string {
  return JSON.stringify([p.range, p.from?.toISOString(), p.to?.toISOString(), p.type, p.severity, p.agent, p.status, p.unresolved, p.q]);
}

export const hasFilters = (p: InboxParams) =>
  p.range !== "24h" || p.type.length > 0 || p.severity.length > 0 || p.agent.length > 0 || p.status.length > 0 || !p.unresolved || p.q !== "";

/** Query-string values shared by the list, the counts, the poll and bulk "all matching". */
export type FilterQuery = {
  start_ns: string;
  end_ns?: string;
  agent_name?: string;
  interruption_type?: string;
  severity?: string;
  status?: string;
  resolved?: string;
  q?: string;
};

const dateToNs = (d: Date) => BigInt(d.getTime()) * 1_000_000n;

/**
 * The time window, fixed at `anchorNs` (when the view was loaded or last refreshed): rows that
 * arrive later are announced by the "N new" banner instead of jumping into the table.
 * `openEnded` says whether newer events can still match (so polling makes sense).
 */
export function timeWindow(p: InboxParams, anchorNs: bigint): { startNs: bigint; endNs: bigint; openEnded: boolean; limitNs?: bigint } {
  if (p.range === "custom") {
    const to = p.to ? dateToNs(p.to) : null;
    const endNs = to !== null && to < anchorNs ? to : anchorNs;
    const startNs = p.from ? dateToNs(p.from) : endNs - RANGE_NS["24h"];
    // limitNs: a custom end still in the future bounds the poll for newer events.
    return { startNs, endNs, openEnded: to === null || to > anchorNs, limitNs: to !== null && to > anchorNs ? to : undefined };
  }
  return { startNs: anchorNs - RANGE_NS[p.range], endNs: anchorNs, openEnded: true };
}

const csv = (values: readonly string[]) => (values.length ? values.join(",") : undefined);

export function filterQuery(p: InboxParams, anchorNs: bigint): FilterQuery {
  const w = timeWindow(p, anchorNs);
  return {
    start_ns: String(w.startNs),
    end_ns: String(w.endNs),
    agent_name: csv(p.agent),
    interruption_type: csv(p.type),
    severity: csv(p.severity),
    status: csv(p.status),
    resolved: p.unresolved ? "false" : undefined,
    q: p.q.trim() || undefined,
  };
}

/** Drops undefined values (for request bodies and stable query keys). */
export function compact<T extends Record<string, string | undefined>>(q: T): Record<string, string> {
  return Object.fromEntries(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined));
}
