// Snooze and mute (SPEC §4, noise control): snoozing an interruption, a selection (bulk) or a
// fingerprint group; the snoozes; mute rules.
import { z } from "zod";
import { INTERRUPTION_TYPES, SEVERITIES } from "../../domain/interruptions";
import { SNOOZE_SCOPES, type SnoozeConditions } from "../../domain/snooze";
import { notToCome, nowNs } from "../../domain/time";
import { contract } from "../contract";
import { boolParam, limitParam } from "./params";
import { recordSchema } from "./schemas";

const ns = z.int().describe("integer nanoseconds since the Unix epoch (exact JSON integer)");
const MAX_SECS = 366 * 86_400;

/** A time as `until_ns` (exact integer ns), `until` (ISO 8601) or `for_secs` (from now): at most one. */
const timeFields = {
  until_ns: z.union([z.int().positive(), z.string().regex(/^\d{1,20}$/, "expected integer nanoseconds")]).optional().describe("until this time (integer nanoseconds)"),
  until: z.iso.datetime({ offset: true }).optional().describe("until this time (ISO 8601)"),
  for_secs: z.int().min(60).max(MAX_SECS).optional().describe("for this many seconds from now (1 h = 3600, 8 h, 24 h, 7 d = 604800)"),
};
type TimeFields = { until_ns?: number | string; until?: string; for_secs?: number };

/** The one time given (null for none); an issue when several, or one in the past. */
function timeOf(b: TimeFields, ctx: z.RefinementCtx, names: { ns: string; iso: string }): bigint | null {
  const given = [b.until_ns !== undefined, b.until !== undefined, b.for_secs !== undefined].filter(Boolean).length;
  if (given > 1) {
    ctx.addIssue({ code: "custom", path: [names.ns], message: `give one of ${names.ns}, ${names.iso} or for_secs` });
    return null;
  }
  const now = nowNs();
  const at = b.until_ns !== undefined ? BigInt(b.until_ns) : b.until !== undefined ? nowNs(Date.parse(b.until)) : b.for_secs !== undefined ? now + BigInt(b.for_secs) * 1_000_000_000n : null;
  const why = at === null ? null : notToCome(at, now);
  if (why) ctx.addIssue({ code: "custom", path: [b.until !== undefined ? names.iso : names.ns], message: why });
  return at;
}

export type SnoozeRequest = SnoozeConditions & { reason: string | null };

const reason = z.string().trim().max(1000).optional().describe("why (shown in the activity of each interruption)");

const snoozeFields = {
  ...timeFields,
  until_occurrences: z.int().min(1).max(1_000_000).optional().describe("wake after this many more occurrences of the fingerprint"),
  until_escalates: z.boolean().optional().describe("wake when the fingerprint's rate over the last hour reaches 3× its rate when snoozed, or a more severe interruption of it arrives"),
  reason,
};

function toSnoozeRequest(b: z.output<z.ZodObject<typeof snoozeFields>>, ctx: z.RefinementCtx): SnoozeRequest {
  const untilNs = timeOf(b, ctx, { ns: "until_ns", iso: "until" });
  const request = { untilNs, untilOccurrences: b.until_occurrences ?? null, untilEscalates: b.until_escalates ?? false, reason: b.reason || null };
  const noTime = b.until_ns === undefined && b.until === undefined && b.for_secs === undefined;
  if (noTime && request.untilOccurrences === null && !request.untilEscalates) {
    ctx.addIssue({ code: "custom", path: ["until_ns"], message: "give a time (until_ns, until or for_secs), until_occurrences or until_escalates" });
  }
  return request;
}

/** A snooze's conditions: a time, a number of occurrences, escalation, or several (the first met wakes it). */
export const snoozeBody = z.object(snoozeFields).transform(toSnoozeRequest);

const tag = "snoozes";

export const snoozeSchema = z.object({
  id: z.string(),
  scope: z.enum(SNOOZE_SCOPES).describe("interruptions: chosen ones (one snooze per fingerprint); fingerprint: the whole group, new arrivals included; mute: a mute rule's"),
  fingerprint: z.string().nullable(),
  mute_rule_id: z.string().nullable(),
  until_ns: ns.nullable(),
  until_occurrences: z.int().nullable(),
  until_escalates: z.boolean(),
  occurrences: z.int().describe("occurrences of the fingerprint counted since snoozed (a mute rule's: interruptions it muted)"),
  baseline_per_hour: z.int().nullable().describe("interruptions of the fingerprint in the hour before snoozing (escalation compares with it)"),
  baseline_severity: z.enum(SEVERITIES).nullable(),
  reason: z.string().nullable(),
  actor: z.string(),
  created_at_ns: ns,
  ended_at_ns: ns.nullable(),
  end_reason: z.string().nullable().describe("the condition met, or who woke it"),
  snoozed: z.int().describe("interruptions it holds now"),
});

export const snoozeInterruption = contract({
  method: "POST", path: "/api/interruptions/{id}/snooze", tag: "interruptions", scope: "triage", body: snoozeBody, response: recordSchema,
  summary: "Snooze an interruption until a time, N more occurrences of its fingerprint, or escalation (409 when resolved). It leaves the unresolved views and sends no alerts; it stays `resolved: false`.",
});

export const listSnoozes = contract({
  method: "GET", path: "/api/snoozes", tag, scope: "read",
  query: z.object({
    active: boolParam.optional().describe("true (default): snoozes still holding; false: ended ones"),
    fingerprint: z.string().min(1).optional(),
    limit: limitParam.optional(),
  }),
  response: z.array(snoozeSchema),
  summary: "Snoozes, newest first, with what wakes each and how many interruptions it holds.",
});

export const snoozeGroup = contract({
  method: "POST", path: "/api/snoozes", tag, scope: "triage", status: 201,
  body: z.object({ fingerprint: z.string().min(1).max(200), ...snoozeFields }).transform((b, ctx) => ({ fingerprint: b.fingerprint, ...toSnoozeRequest(b, ctx) })),
  response: snoozeSchema.extend({ changed: z.int().describe("interruptions snoozed now") }),
  summary: "Snooze a fingerprint group: its unresolved interruptions, and new ones while the snooze lasts.",
});

export const wakeSnooze = contract({
  method: "POST", path: "/api/snoozes/{id}/wake", tag, scope: "triage", response: snoozeSchema,
  summary: "End a snooze now: what it holds returns to open (idempotent).",
});

export const muteRuleSchema = z.object({
  id: z.string(),
  fingerprint: z.string().nullable(),
  agent_name: z.string().nullable(),
  interruption_type: z.string().nullable(),
  reason: z.string().nullable(),
  expires_at_ns: ns.nullable(),
  active: z.boolean().describe("false once expired"),
  created_by: z.string(),
  created_at_ns: ns,
  snooze_id: z.string().nullable(),
  muted: z.int().describe("interruptions it made arrive snoozed"),
  snoozed: z.int().describe("of them, still snoozed"),
});

export const listMuteRules = contract({
  method: "GET", path: "/api/mute-rules", tag, scope: "read", response: z.array(muteRuleSchema),
  summary: "Mute rules, newest first (expired ones until removed).",
});

export const createMuteRule = contract({
  method: "POST", path: "/api/mute-rules", tag, scope: "triage", status: 201,
  body: z
    .object({
      fingerprint: z.string().trim().min(1).max(200).optional(),
      agent_name: z.string().trim().min(1).max(200).optional(),
      interruption_type: z.enum(INTERRUPTION_TYPES).optional(),
      expires_at_ns: timeFields.until_ns.describe("expiry (integer nanoseconds)"),
      expires_at: timeFields.until.describe("expiry (ISO 8601)"),
      for_secs: timeFields.for_secs.describe("expiry, in seconds from now"),
      reason,
    })
    .transform((b, ctx) => {
      if ((b.fingerprint !== undefined) === (b.agent_name !== undefined || b.interruption_type !== undefined)) {
        ctx.addIssue({ code: "custom", path: ["fingerprint"], message: "give a fingerprint, or an agent_name and an interruption_type" });
      } else if (b.fingerprint === undefined && (b.agent_name === undefined || b.interruption_type === undefined)) {
        ctx.addIssue({ code: "custom", path: [b.agent_name === undefined ? "agent_name" : "interruption_type"], message: "required with the other" });
      }
      return {
        fingerprint: b.fingerprint ?? null,
        agentName: b.agent_name ?? null,
        type: b.interruption_type ?? null,
        expiresAtNs: timeOf({ until_ns: b.expires_at_ns, until: b.expires_at, for_secs: b.for_secs }, ctx, { ns: "expires_at_ns", iso: "expires_at" }),
        reason: b.reason || null,
      };
    }),
  response: muteRuleSchema,
  summary: "Add a mute rule: new interruptions matching a fingerprint, or an agent and a type, arrive snoozed until it expires or is removed.",
});

export const deleteMuteRule = contract({
  method: "DELETE", path: "/api/mute-rules/{id}", tag, scope: "triage", response: muteRuleSchema,
  summary: "Remove a mute rule; the interruptions it still holds return to open.",
});
