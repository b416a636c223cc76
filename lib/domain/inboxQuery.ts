// The inbox's URL query string as a saved view stores it (its filters, sort and grouping), read
// on the server: checked and put in a canonical form when a view is saved, and turned into the
// interruption filter it selects at a given time when the view's count is asked for.
//
// The browser writes these keys (components/inbox/params.ts, with nuqs); this module reads the
// same keys with the same defaults and meanings. tests/unit/inboxQuery.test.ts checks the two
// agree (through the API's query parsing) for every tab and filter.
import { invalid } from "./errors";
import { ACTIVE_STATUSES, INTERRUPTION_TYPES, SEVERITIES, SORTS, STATUSES, UNRESOLVED_STATUSES, type InterruptionFilter, type Status } from "./interruptions";
import { MAX_NS, NS_PER_HOUR, NS_PER_MS } from "./time";

export const VIEW_RANGES = ["1h", "24h", "7d", "custom"] as const;
export const VIEW_TABS = ["review", "unresolved", "acknowledged", "snoozed", "resolved"] as const;
type Tab = (typeof VIEW_TABS)[number];

const RANGE_NS: Record<Exclude<(typeof VIEW_RANGES)[number], "custom">, bigint> = { "1h": NS_PER_HOUR, "24h": 24n * NS_PER_HOUR, "7d": 7n * 24n * NS_PER_HOUR };

/** What each tab selects (as components/inbox/params.ts's TAB_QUERY); `me` is the caller. */
const TAB_FILTER: Record<Tab, { statuses: readonly Status[]; assignees?: string[] }> = {
  review: { statuses: ["open"], assignees: ["none", "me"] },
  unresolved: { statuses: ACTIVE_STATUSES },
  acknowledged: { statuses: ["acknowledged"] },
  snoozed: { statuses: ["snoozed"] },
  resolved: { statuses: ["resolved"] },
};

type KeySpec = { kind: "enum"; values: readonly string[]; default?: string } | { kind: "list"; values?: readonly string[] } | { kind: "bool"; default: boolean } | { kind: "date" } | { kind: "text" };

/** Every key a view keeps, in the order a canonical query lists them. */
const KEYS: Record<string, KeySpec> = {
  tab: { kind: "enum", values: VIEW_TABS },
  range: { kind: "enum", values: VIEW_RANGES, default: "24h" },
  from: { kind: "date" },
  to: { kind: "date" },
  severity: { kind: "list", values: SEVERITIES },
  interruption_type: { kind: "list", values: INTERRUPTION_TYPES },
  agent_name: { kind: "list" },
  status: { kind: "list", values: STATUSES },
  unresolved: { kind: "bool", default: true },
  regressed: { kind: "bool", default: false },
  fingerprint: { kind: "list" },
  q: { kind: "text" },
  group: { kind: "bool", default: false },
  sort: { kind: "enum", values: SORTS, default: "time" },
  order: { kind: "enum", values: ["asc", "desc"], default: "desc" },
};

/** Inbox URL keys that are not part of a view: which view is open, how many pages are loaded. */
const IGNORED = new Set(["view", "pages"]);

export const MAX_VIEW_QUERY = 4000;

const list = (v: string) => v.split(",").map((s) => s.trim()).filter(Boolean);

/**
 * The canonical form of an inbox query string (a leading `?` is fine): known keys only, values
 * checked, defaults and empty values left out, keys in one order. Throws `invalid` naming the
 * key at fault.
 */
export function normalizeViewQuery(text: string): string {
  if (text.length > MAX_VIEW_QUERY) throw invalid(`query: at most ${MAX_VIEW_QUERY} characters`);
  const given = new URLSearchParams(text.startsWith("?") ? text.slice(1) : text);
  const out = new URLSearchParams();
  for (const key of given.keys()) {
    if (!(key in KEYS) && !IGNORED.has(key)) throw invalid(`query: unknown parameter '${key}'`);
  }
  for (const [key, spec] of Object.entries(KEYS)) {
    const all = given.getAll(key);
    if (all.length > 1) throw invalid(`query.${key}: given more than once`);
    const raw = all[0]?.trim();
    if (raw === undefined || raw === "") continue;
    const value = normalizeValue(key, spec, raw);
    if (value !== null) out.set(key, value);
  }
  // as stored: its commas written %2C, a list is longer than it was given
  const canonical = out.toString();
  if (canonical.length > MAX_VIEW_QUERY) throw invalid(`query: at most ${MAX_VIEW_QUERY} characters (as stored, each comma written %2C)`);
  return canonical;
}

function normalizeValue(key: string, spec: KeySpec, raw: string): string | null {
  switch (spec.kind) {
    case "enum":
      if (!spec.values.includes(raw)) throw invalid(`query.${key}: unknown value '${raw}' (expected one of ${spec.values.join(", ")})`);
      return raw === spec.default ? null : raw;
    case "bool":
      if (raw !== "true" && raw !== "false") throw invalid(`query.${key}: expected true or false`);
      return (raw === "true") === spec.default ? null : raw;
    case "list": {
      const items = [...new Set(list(raw))];
      const unknown = spec.values ? items.find((i) => !spec.values!.includes(i)) : undefined;
      if (unknown !== undefined) throw invalid(`query.${key}: unknown value '${unknown}' (expected one of ${spec.values!.join(", ")})`);
      return items.length ? items.join(",") : null;
    }
    case "date": {
      const ms = Date.parse(raw);
      if (Number.isNaN(ms)) throw invalid(`query.${key}: expected an ISO date and time`);
      // a time in nanoseconds is between 0 (1970) and 2^63 (2262): a view names one it can count
      if (ms < 0 || BigInt(ms) * NS_PER_MS > MAX_NS) throw invalid(`query.${key}: expected a date between 1970 and 2262`);
      return new Date(ms).toISOString();
    }
    case "text":
      if (raw.length > 200) throw invalid(`query.${key}: at most 200 characters`);
      return raw;
  }
}

/** The parts of a (canonical) view query, with defaults filled in. */
export type ViewParams = {
  tab: Tab | null;
  range: (typeof VIEW_RANGES)[number];
  from: bigint | null;
  to: bigint | null;
  severity: string[];
  interruption_type: string[];
  agent_name: string[];
  status: Status[];
  unresolved: boolean;
  regressed: boolean;
  fingerprint: string[];
  q: string;
};

export function viewParams(query: string): ViewParams {
  const p = new URLSearchParams(normalizeViewQuery(query));
  const date = (k: string) => {
    const v = p.get(k);
    return v === null ? null : BigInt(Date.parse(v)) * NS_PER_MS;
  };
  return {
    tab: (p.get("tab") as Tab | null) ?? null,
    range: (p.get("range") as ViewParams["range"] | null) ?? "24h",
    from: date("from"),
    to: date("to"),
    severity: list(p.get("severity") ?? ""),
    interruption_type: list(p.get("interruption_type") ?? ""),
    agent_name: list(p.get("agent_name") ?? ""),
    status: list(p.get("status") ?? "") as Status[],
    unresolved: p.get("unresolved") !== "false",
    regressed: p.get("regressed") === "true",
    fingerprint: list(p.get("fingerprint") ?? ""),
    q: (p.get("q") ?? "").trim(),
  };
}

const orUndefined = <T>(xs: T[]) => (xs.length ? xs : undefined);

/**
 * The interruptions a view selects at `nowNs`: its time range ends now (a custom end in the past
 * stays where it is), and a tab overrides the status filters. `me` in assignees stands for the
 * caller (the query layer replaces it).
 */
export function viewFilter(query: string, nowNs: bigint): InterruptionFilter {
  const v = viewParams(query);
  let startNs: bigint;
  let endNs: bigint;
  if (v.range === "custom") {
    endNs = v.to !== null && v.to < nowNs ? v.to : nowNs;
    startNs = v.from ?? endNs - RANGE_NS["24h"];
  } else {
    endNs = nowNs;
    startNs = nowNs - RANGE_NS[v.range];
  }
  let statuses: Status[] | undefined;
  let assignees: string[] | undefined;
  if (v.tab) {
    statuses = [...TAB_FILTER[v.tab].statuses];
    assignees = TAB_FILTER[v.tab].assignees;
  } else if (v.unresolved) {
    statuses = v.status.length ? v.status.filter((s) => UNRESOLVED_STATUSES.includes(s)) : [...ACTIVE_STATUSES];
  } else {
    statuses = orUndefined(v.status);
  }
  return {
    startNs,
    endNs,
    agentNames: orUndefined(v.agent_name),
    types: orUndefined(v.interruption_type),
    severities: orUndefined(v.severity),
    statuses,
    q: v.q || undefined,
    fingerprints: orUndefined(v.fingerprint),
    assignees,
    regressed: v.regressed ? true : undefined,
  };
}
