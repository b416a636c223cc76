// Response shapes, for the OpenAPI document (responses are built by lib/wire/records.ts).
import { z } from "zod";
import { SEVERITIES, STATUSES, type Severity } from "../../domain/interruptions";

const ns = z.int().describe("integer nanoseconds since the Unix epoch (exact JSON integer)");

export const errorSchema = z.object({ error: z.string() });

export const recordSchema = z.object({
  interruption_id: z.string(),
  session_id: z.string().nullable(),
  trace_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  call_id: z.string().nullable(),
  pid: z.int().nullable(),
  agent_name: z.string().nullable(),
  interruption_type: z.string(),
  severity: z.string(),
  occurred_at_ns: ns,
  detail: z.string().describe("JSON-encoded evidence object"),
  resolved: z.boolean(),
  status: z.enum(STATUSES),
  assignee: z.string().nullable(),
  acknowledged_by: z.string().nullable(),
  resolved_by: z.string().nullable(),
  resolved_at_ns: ns.nullable(),
  occurrences: z.int(),
  last_seen_ns: ns,
  fingerprint: z.string(),
  regressed: z.boolean().describe("an earlier interruption with this fingerprint was resolved before this one occurred"),
  snooze_id: z.string().nullable().describe("while snoozed: the snooze that holds it (GET /api/snoozes)"),
});

const bySeverity = z.object(Object.fromEntries(SEVERITIES.map((s) => [s, z.int()])) as Record<Severity, z.ZodInt>);
const typeCount = z.object({ interruption_type: z.string(), severity: z.string(), count: z.int() });

export const countSchema = z.object({ total: z.int(), by_severity: bySeverity });
export const statsSchema = z.array(typeCount);
export const sessionCountsSchema = z.array(z.object({ session_id: z.string(), total: z.int(), by_severity: bySeverity, types: z.array(typeCount) }));
export const agentCountsSchema = z.array(
  z.object({ agent_name: z.string().nullable(), total: z.int(), by_severity: bySeverity, sessions: z.int().describe("sessions with these interruptions") }),
);
export const conversationCountsSchema = z.array(
  z.object({ conversation_id: z.string(), session_id: z.string().nullable(), total: z.int(), by_severity: bySeverity, types: z.array(typeCount) }),
);

export const activitySchema = z.object({ actor: z.string(), action: z.string(), before: z.unknown(), after: z.unknown(), note: z.string().nullable(), at_ns: ns });
export const ingestResultSchema = z.object({ received: z.int(), accepted: z.int(), duplicates: z.int(), interruptions: z.int() });
