import { z } from "zod";
import { contract } from "../contract";
import { filterFields, filterQuery, groupsQuery, listQuery, seriesQuery, sessionCountsQuery, wholeListQuery } from "./params";
import { snoozeBody } from "./snoozes";
import { activitySchema, agentCountsSchema, conversationCountsSchema, countSchema, recordSchema, sessionCountsSchema, statsSchema } from "./schemas";

const tag = "interruptions";

export const listInterruptions = contract({
  method: "GET", path: "/api/interruptions", tag, scope: "read", query: listQuery, response: z.array(recordSchema),
  summary:
    "Interruptions, newest first. Multi-valued filters are comma-separated; a Link rel=\"next\" header continues past `limit`. " +
    "A first page's X-Arrived-Through header is the latest time an interruption was stored before it was read: `arrived_after_ns` with it asks what arrived since.",
});
export const countInterruptions = contract({
  method: "GET", path: "/api/interruptions/count", tag, scope: "read", query: filterQuery, response: countSchema,
  summary: "Unresolved interruptions by severity (snoozed ones are unresolved).",
});
export const interruptionStats = contract({
  method: "GET", path: "/api/interruptions/stats", tag, scope: "read", query: filterQuery, response: statsSchema,
  summary: "Unresolved interruptions by type and severity.",
});
export const sessionCounts = contract({
  method: "GET", path: "/api/interruptions/session-counts", tag, scope: "read", query: sessionCountsQuery, response: sessionCountsSchema,
  summary: "Unresolved interruptions per session (\"__unassigned__\" for none): every session by default, or the first `limit` by `sort`.",
});
export const agentCounts = contract({
  method: "GET", path: "/api/interruptions/agent-counts", tag, scope: "read", query: filterQuery, response: agentCountsSchema,
  summary: "Unresolved interruptions per agent (null for none), most first, with the number of sessions they are in.",
});
export const conversationCounts = contract({
  method: "GET", path: "/api/interruptions/conversation-counts", tag, scope: "read", query: filterQuery, response: conversationCountsSchema,
  summary: "Unresolved interruptions per conversation (\"__unassigned__\" for none).",
});
export const getInterruption = contract({
  method: "GET", path: "/api/interruptions/{id}", tag, scope: "read", response: recordSchema, summary: "One interruption.",
});
export const interruptionActivity = contract({
  method: "GET", path: "/api/interruptions/{id}/activity", tag, scope: "read", response: z.array(activitySchema),
  summary: "Who did what to an interruption, oldest first.",
});

const noteBody = z.object({ note: z.string().max(10_000).optional() }).optional();

export const resolveInterruption = contract({
  method: "POST", path: "/api/interruptions/{id}/resolve", tag, scope: "triage", body: noteBody,
  response: z.object({ status: z.literal("resolved") }), summary: "Resolve (idempotent); an optional note.",
});
export const acknowledgeInterruption = contract({
  method: "POST", path: "/api/interruptions/{id}/acknowledge", tag, scope: "triage", body: noteBody, response: recordSchema,
  summary: "Acknowledge an open interruption (409 when resolved).",
});
export const reopenInterruption = contract({
  method: "POST", path: "/api/interruptions/{id}/reopen", tag, scope: "triage", body: noteBody, response: recordSchema,
  summary: "Return an interruption to open.",
});
export const assignInterruption = contract({
  method: "POST", path: "/api/interruptions/{id}/assign", tag, scope: "triage",
  body: z.object({ assignee: z.string().min(1).max(256).nullable(), note: z.string().max(10_000).optional() }),
  response: recordSchema, summary: "Assign to someone (null unassigns).",
});
export const noteInterruption = contract({
  method: "POST", path: "/api/interruptions/{id}/notes", tag, scope: "triage",
  body: z.object({ note: z.string().min(1).max(10_000) }), response: recordSchema, status: 201, summary: "Add a note.",
});

/** The list filters as query-string values (validated like the query string). */
const bulkFilter = z.object(Object.fromEntries(Object.keys(filterFields).map((k) => [k, z.string().optional()])));

export const bulkInterruptions = contract({
  method: "POST", path: "/api/interruptions/bulk", tag, scope: "triage",
  body: z
    .object({
      action: z.enum(["acknowledge", "resolve", "reopen", "assign", "snooze"]),
      ids: z.array(z.string().min(1)).min(1).max(100_000).optional(),
      filter: bulkFilter.optional().describe("the list filters, as query-string values"),
      assignee: z.string().min(1).max(256).nullable().optional(),
      note: z.string().max(10_000).optional(),
      snooze: snoozeBody.optional().describe("for snooze: the conditions, as for POST /api/interruptions/{id}/snooze (one snooze per fingerprint among them)"),
    })
    .refine((b) => (b.ids ? 1 : 0) + (b.filter ? 1 : 0) === 1, { message: "give exactly one of ids or filter", path: ["ids"] })
    .refine((b) => b.action !== "assign" || b.assignee !== undefined, { message: "required for assign", path: ["assignee"] })
    .refine((b) => b.action !== "snooze" || b.snooze !== undefined, { message: "required for snooze", path: ["snooze"] }),
  response: z.object({ matched: z.int(), changed: z.int() }),
  summary: "Apply an action to interruptions by ids or by filter.",
});

export const sessionInterruptions = contract({
  method: "GET", path: "/api/sessions/{id}/interruptions", tag, scope: "read", query: wholeListQuery, response: z.array(recordSchema),
  summary: "A session's interruptions, oldest first; a Link rel=\"next\" header continues past `limit`.",
});
export const conversationInterruptions = contract({
  method: "GET", path: "/api/conversations/{id}/interruptions", tag, scope: "read", query: wholeListQuery, response: z.array(recordSchema),
  summary: "A conversation's interruptions, oldest first; a Link rel=\"next\" header continues past `limit`.",
});

export const interruptionTimeseries = contract({
  method: "GET", path: "/api/interruptions/timeseries", tag, scope: "read", query: seriesQuery,
  response: z.object({
    start_ns: z.int(), end_ns: z.int(), bucket_ns: z.int(), group_by: z.string(),
    buckets: z.array(z.object({ start_ns: z.int(), counts: z.record(z.string(), z.int()) })),
  }),
  summary: "Interruption counts per time bucket, by severity or type (all statuses unless filtered).",
});

export const interruptionGroups = contract({
  method: "GET", path: "/api/interruptions/groups", tag, scope: "read", query: groupsQuery,
  response: z.array(z.object({
    fingerprint: z.string(), interruption_type: z.string(), agent_name: z.string().nullable(), model: z.string().nullable(),
    severity: z.string(), count: z.int(), occurrences: z.int().describe("sightings: a dead loop or retry storm updated by new evidence counts each"), by_status: z.object({ open: z.int(), acknowledged: z.int(), snoozed: z.int(), resolved: z.int() }),
    first_seen_ns: z.int(), last_seen_ns: z.int(), regressed: z.boolean(), trend: z.array(z.int()),
  })),
  summary: "Interruptions grouped by fingerprint, most recent first: counts per state, first/last seen, trend, regressed; a Link rel=\"next\" header continues past `limit`. Resolve a group with bulk {filter: {fingerprint}}.",
});
