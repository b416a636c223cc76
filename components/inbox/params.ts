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
import { ACTIVE_STATUSES, INTERRUPTION_TYPES, SEVERITIES, SORTS, STATUSES, type Status } from "@/lib/domain/interruptions";
import { NS_PER_HOUR, nowNs } from "@/lib/domain/time";

export const RANGES = ["1h", "24h", "7d", "custom"] as const;
/** Triage tabs: each stands for a status (and, for review, an assignee) filter. */
export const TABS = ["review", "unresolved", "acknowledged", "snoozed", "resolved"] as const;
export type Tab = (typeof TABS)[number];

export type SortKey = (typeof SORTS)[number];
export type Range = (typeof RANGES)[number];

export const PAGE_SIZE = 50;

const RANGE_NS: Record<Exclude<Range, "custom">, bigint> = { "1h": NS_PER_HOUR, "24h": 24n * NS_PER_HOUR, "7d": 7n * 24n * NS_PER_HOUR };

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
  /** Server-side grouped view (one row per fingerprint). */
  group: parseAsBoolean.withDefault(false),
  /** A triage tab; when absent the status chips and "unresolved only" decide. */
  tab: parseAsStringLiteral(TABS),
  regressed: parseAsBoolean.withDefault(false),
  /** A group's members (from the grouped view). */
  fingerprint: parseAsArrayOf(parseAsString).withDefault([]),
};

export type InboxParams = Values<typeof inboxParsers>;

/** URL names that match the REST API's (so links from other pages and the API read the same). */
export const inboxUrlKeys = { type: "interruption_type", agent: "agent_name" } as const;

export function useInboxParams() {
  return useQueryStates(inboxParsers, { history: "push", urlKeys: inboxUrlKeys });
}

/** The parts of the view that choose *which* interruptions match (not how they are ordered). */
export function filterKey(p: InboxParams): string {
  return JSON.stringify([p.range, p.from?.toISOString(), p.to?.toISOString(), p.type, p.severity, p.agent, p.status, p.unresolved, p.q, p.tab, p.regressed, p.fingerprint]);
}

export const hasFilters = (p: InboxParams) =>
  p.range !== "24h" ||
  p.type.length > 0 ||
  p.severity.length > 0 ||
  p.agent.length > 0 ||
  p.status.length > 0 ||
  !p.unresolved ||
  p.q !== "" ||
  p.regressed ||
  p.fingerprint.length > 0;

/**
 * The status (and assignee) query values of each tab; `me` is resolved by the server. The
 * unresolved views name open and acknowledged: the API's `resolved=false` includes snoozed ones.
 */
export const TAB_QUERY: Record<Tab, { status?: string; resolved?: string; assignee?: string }> = {
  review: { status: "open", assignee: "none,me" },
  unresolved: { status: ACTIVE_STATUSES.join(",") },
  acknowledged: { status: "acknowledged" },
  snoozed: { status: "snoozed" },
  resolved: { status: "resolved" },
};

/** The tab the view shows: the one in the URL, or the one the status filters amount to. */
export function activeTab(p: InboxParams): Tab | null {
  if (p.tab) return p.tab;
  if (p.status.length === 0 && p.unresolved) return "unresolved";
  if (p.status.length === 1 && p.status[0] === "acknowledged") return "acknowledged";
  if (p.status.length === 1 && p.status[0] === "snoozed") return "snoozed";
  if (p.status.length === 1 && p.status[0] === "resolved" && !p.unresolved) return "resolved";
  return null;
}

/** The statuses and "unresolved only" in effect (a tab overrides the chips). */
export function effectiveStatus(p: InboxParams): { status: Status[]; unresolved: boolean } {
  switch (p.tab) {
    case "review":
      return { status: ["open"], unresolved: true };
    case "unresolved":
      return { status: [], unresolved: true };
    case "acknowledged":
      return { status: ["acknowledged"], unresolved: true };
    case "snoozed":
      return { status: ["snoozed"], unresolved: true };
    case "resolved":
      return { status: ["resolved"], unresolved: false };
    default:
      return { status: p.status, unresolved: p.unresolved };
  }
}

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
  assignee?: string;
  regressed?: string;
  fingerprint?: string;
};

const dateToNs = (d: Date) => nowNs(d.getTime());

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

/** Everything but the status part (which the tabs vary). */
export function baseFilterQuery(p: InboxParams, anchorNs: bigint): FilterQuery {
  const w = timeWindow(p, anchorNs);
  return {
    start_ns: String(w.startNs),
    end_ns: String(w.endNs),
    agent_name: csv(p.agent),
    interruption_type: csv(p.type),
    severity: csv(p.severity),
    q: p.q.trim() || undefined,
    regressed: p.regressed ? "true" : undefined,
    fingerprint: csv(p.fingerprint),
  };
}

export function filterQuery(p: InboxParams, anchorNs: bigint): FilterQuery {
  const base = baseFilterQuery(p, anchorNs);
  if (p.tab) return { ...base, ...TAB_QUERY[p.tab] };
  // "Unresolved only" without status chips: the statuses that need someone (snoozed ones wait)
  const status = p.status.length ? p.status : p.unresolved ? ACTIVE_STATUSES : [];
  return { ...base, status: csv(status), resolved: p.unresolved ? "false" : undefined };
}

/** Drops undefined values (for request bodies and stable query keys). */
export function compact<T extends Record<string, string | undefined>>(q: T): Record<string, string> {
  return Object.fromEntries(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined));
}
