// Query-parameter schemas shared by the list and count routes (SPEC §5.1, §5.2). Query values
// arrive as strings; each schema names the parameter in its error.
import { z } from "zod";
import { COUNT_SORTS, INTERRUPTION_TYPES, SEVERITIES, SORTS, STATUSES, type InterruptionFilter, type Sort, type Status, UNRESOLVED_STATUSES } from "../../domain/interruptions";
import { MAX_NS, NS_PER_HOUR, nowNs } from "../../domain/time";

export const MAX_LIMIT = 5000;

/** Integer nanoseconds in a query string (below 2^63: what a column holds). */
export const nsParam = z
  .string()
  .regex(/^\d{1,20}$/, "expected integer nanoseconds")
  .transform((v) => BigInt(v))
  .refine((v) => v <= MAX_NS, "expected integer nanoseconds below 2^63");

/**
 * `<ns>.<key>` where a page continues (a time, then the id or fingerprint of the last row of the
 * previous page), spelled out as `label` in its error; `key` may be left out where `optionalKey`.
 */
export function timeKeyParam(label: string, optionalKey = false) {
  return z
    .string()
    .regex(optionalKey ? /^\d{1,20}(\..+)?$/ : /^\d{1,20}\../, `expected ${label} from the previous page`)
    .transform((v) => {
      const dot = v.indexOf(".");
      return { ns: BigInt(dot < 0 ? v : v.slice(0, dot)), key: dot < 0 ? undefined : v.slice(dot + 1) };
    })
    .refine((a) => a.ns <= MAX_NS, "expected integer nanoseconds below 2^63 before the dot");
}

/**
 * The text of a list parameter: comma-separated, and a parameter given more than once
 * (`severity=critical&severity=high`) counts all its values. (A parameter of one value given
 * more than once arrives as an array too, and is a 400 naming it: it took only the last one.)
 */
const listText = z.preprocess((v) => (Array.isArray(v) ? v.join(",") : v), z.string());

/** The items of a list's text; none (`agent_name=`) is no filter, as if the parameter were absent. */
const listItems = (text: string): string[] | undefined => {
  const items = text.split(",").map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
};

/** A comma-separated list whose items must be among `allowed`. */
export function csvOf<T extends string>(allowed: readonly T[]) {
  return listText.transform((text, ctx) => {
    const items = listItems(text);
    if (!items) return undefined;
    const unknown = items.filter((i) => !(allowed as readonly string[]).includes(i));
    if (unknown.length) {
      ctx.addIssue({ code: "custom", message: `unknown value '${unknown[0]}' (expected one of ${allowed.join(", ")})` });
      return z.NEVER;
    }
    return items as T[];
  });
}

/**
 * A comma-separated list of names (agents, fingerprints, assignees): at most MAX_LIMIT, which
 * keeps a filter's statement within what the databases bind (SQLite: 32,766 values) — a bulk
 * action's filter comes in a body, which no header limit bounds.
 */
export const csv = listText.transform(listItems).refine((items) => (items?.length ?? 0) <= MAX_LIMIT, `at most ${MAX_LIMIT} values`);

export const limitParam = z
  .string()
  .regex(/^\d+$/, "expected a positive integer")
  .transform(Number)
  .refine((n) => n >= 1 && n <= MAX_LIMIT, `expected 1 to ${MAX_LIMIT}`);

export const boolParam = z.enum(["true", "false"], { message: "expected true or false" }).transform((v) => v === "true");


export const filterFields = {
  start_ns: nsParam.optional(),
  end_ns: nsParam.optional(),
  agent_name: csv.optional(),
  interruption_type: csvOf(INTERRUPTION_TYPES).optional(),
  severity: csvOf(SEVERITIES).optional(),
  resolved: boolParam.optional(),
  status: csvOf(STATUSES).optional(),
  session_id: z.string().min(1).optional(),
  conversation_id: z.string().min(1).optional(),
  q: z.string().min(1).max(200).optional(),
  fingerprint: csv.optional().describe("fingerprints, comma-separated (a group of the grouped view)"),
  assignee: csv.optional().describe("assignees, comma-separated; `me` is the caller, `none` unassigned"),
  regressed: boolParam.optional().describe("only (or no) interruptions whose fingerprint had been resolved before"),
  arrived_after_ns: nsParam.optional().describe("only interruptions stored after this time, whenever they occurred (a list's X-Arrived-Through header: what arrived since)"),
};

type RawFilter = z.output<z.ZodObject<typeof filterFields>>;

/** The time window defaults to the last 24 hours; `resolved` narrows `status`. */
function toFilter(raw: RawFilter, ctx: z.RefinementCtx): InterruptionFilter {
  const endNs = raw.end_ns ?? nowNs();
  const startNs = raw.start_ns ?? endNs - 24n * NS_PER_HOUR;
  if (startNs > endNs) ctx.addIssue({ code: "custom", path: ["start_ns"], message: "must not be after end_ns" });
  let statuses = raw.status;
  if (raw.resolved !== undefined) {
    const byResolved: readonly Status[] = raw.resolved ? ["resolved"] : UNRESOLVED_STATUSES;
    statuses = statuses ? statuses.filter((s) => byResolved.includes(s)) : [...byResolved];
  }
  return {
    startNs,
    endNs,
    agentNames: raw.agent_name,
    types: raw.interruption_type,
    severities: raw.severity,
    statuses,
    sessionId: raw.session_id,
    conversationId: raw.conversation_id,
    q: raw.q,
    fingerprints: raw.fingerprint,
    assignees: raw.assignee,
    regressed: raw.regressed,
    arrivedAfterNs: raw.arrived_after_ns,
  };
}

export const filterQuery = z.object(filterFields).transform(toFilter);


/** A list that is read whole by default (AgentSight's routes), in pages of `limit` after `cursor`. */
export const wholeListQuery = z
  .object({
    limit: limitParam.optional().describe(`at most ${MAX_LIMIT} (the default)`),
    cursor: z.string().min(1).optional(),
  })
  .transform((raw) => ({ limit: raw.limit ?? MAX_LIMIT, cursor: raw.cursor }));

export const listQuery = z
  .object({
    ...filterFields,
    limit: limitParam.optional(),
    cursor: z.string().min(1).optional(),
    sort: z.enum(SORTS).optional().describe("time (default), severity, type or agent; ties newest first"),
    order: z.enum(["asc", "desc"]).optional().describe("desc (default) or asc"),
    offset: z
      .string()
      .regex(/^\d{1,15}$/, "expected a whole number below 10^15")
      .transform(Number)
      .optional()
      .describe("rows to skip (the Link header's cursor pages without skipping or repeating rows that change meanwhile)"),
  })
  .transform((raw, ctx) => {
    const sort: Sort = { by: raw.sort ?? "time", order: raw.order ?? "desc" };
    return { filter: toFilter(raw, ctx), limit: raw.limit ?? 200, cursor: raw.cursor, sort, offset: raw.offset ?? 0 };
  });

export type ListQuery = z.output<typeof listQuery>;

/** session-counts: the filter, and optionally only the first `limit` sessions of an order. */
export const sessionCountsQuery = z
  .object({
    ...filterFields,
    limit: limitParam.optional().describe("only the first N sessions (default: every session, as AgentSight answers)"),
    sort: z
      .enum(COUNT_SORTS)
      .optional()
      .describe("total: most interruptions first, ties by the worse severities; severity: the worst severity first (more critical, then more high, …), ties by total. Default: most interruptions first, ties by session id (AgentSight's order)"),
  })
  .transform((raw, ctx) => ({ filter: toFilter(raw, ctx), limit: raw.limit, sort: raw.sort }));

export const seriesQuery = z
  .object({
    ...filterFields,
    buckets: z.string().regex(/^\d+$/, "expected a whole number").transform(Number).refine((n) => n >= 1 && n <= 1000, "expected 1 to 1000").optional(),
    group_by: z.enum(["severity", "type"]).optional(),
  })
  .transform((raw, ctx) => ({ filter: toFilter(raw, ctx), buckets: raw.buckets ?? 48, groupBy: raw.group_by ?? ("severity" as const) }));

export const groupsQuery = z
  .object({
    ...filterFields,
    limit: limitParam.optional(),
    buckets: z.string().regex(/^\d+$/, "expected a whole number").transform(Number).refine((n) => n >= 1 && n <= 100, "expected 1 to 100").optional(),
    cursor: timeKeyParam("<last_seen_ns>.<fingerprint>").transform((c) => ({ lastNs: c.ns, fingerprint: c.key! })).optional(),
  })
  .transform((raw, ctx) => ({ filter: toFilter(raw, ctx), limit: raw.limit ?? 100, buckets: raw.buckets ?? 12, after: raw.cursor }));
