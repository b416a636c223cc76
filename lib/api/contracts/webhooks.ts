// Alert webhooks (SPEC §7): admins configure destinations, see their deliveries, send a test.
import { z } from "zod";
import { ALERT_EVENTS, DELIVERY_STATUSES, WEBHOOK_KINDS } from "../../alerts/rules";
import { INTERRUPTION_TYPES, SEVERITIES } from "../../domain/interruptions";
import { contract } from "../contract";

const tag = "webhooks";
const ns = z.int();

const webhookSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  kind: z.enum(WEBHOOK_KINDS),
  min_severity: z.enum(SEVERITIES),
  types: z.array(z.enum(INTERRUPTION_TYPES)).describe("empty: every type"),
  agents: z.array(z.string()).describe("empty: every agent"),
  repeat_interval_secs: z.int(),
  enabled: z.boolean(),
  signed: z.boolean().describe("whether deliveries carry X-SightDesk-Timestamp (unix seconds) and X-SightDesk-Signature (sha256=<hex HMAC-SHA256 of \"<timestamp>.<raw body>\">) headers"),
  created_by: z.string().nullable(),
  created_at_ns: ns,
  updated_at_ns: ns,
});

const deliverySchema = z.object({
  id: z.string(),
  webhook_id: z.string(),
  interruption_id: z.string().nullable(),
  event: z.enum(ALERT_EVENTS),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at_ns: ns.nullable(),
  created_at_ns: ns,
  delivered_at_ns: ns.nullable(),
});

/** An http(s) URL without credentials (webhooks, forwarders). */
export const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "expected an http(s) URL without credentials");
const name = z.string().trim().min(1).max(100);
const kind = z.enum(WEBHOOK_KINDS, { message: `expected one of ${WEBHOOK_KINDS.join(", ")}` });
const minSeverity = z.enum(SEVERITIES, { message: `expected one of ${SEVERITIES.join(", ")}` });
const types = z.array(z.enum(INTERRUPTION_TYPES)).max(INTERRUPTION_TYPES.length);
const agents = z.array(z.string().trim().min(1).max(200)).max(100);
const repeat = z.int().min(0).max(7 * 86_400).describe("seconds; 0 alerts on every interruption");

export const listWebhooks = contract({
  method: "GET", path: "/api/webhooks", tag, scope: "admin", response: z.array(webhookSchema),
  summary: "Alert webhooks (never their signing secrets).",
});
export const createWebhook = contract({
  method: "POST", path: "/api/webhooks", tag, scope: "admin", status: 201,
  body: z.object({
    name,
    url: httpUrl.describe("where alerts are POSTed. Must not be (or resolve to) a loopback, private, link-local, metadata or other non-public address unless outbound.allow_private lists its range (400)"),
    kind: kind.default("generic"),
    min_severity: minSeverity.default("high"),
    types: types.default([]),
    agents: agents.default([]),
    repeat_interval_secs: repeat.default(3600),
    enabled: z.boolean().default(true),
  }),
  response: webhookSchema.extend({ secret: z.string().nullable().describe("generic webhooks: the signing secret, shown only in this response") }),
  summary: "Add a webhook; a generic one gets an HMAC signing secret, returned once.",
});
export const updateWebhook = contract({
  method: "POST", path: "/api/webhooks/{id}", tag, scope: "admin",
  body: z
    .object({
      name: name.optional(),
      url: httpUrl.optional(),
      kind: kind.optional(),
      min_severity: minSeverity.optional(),
      types: types.optional(),
      agents: agents.optional(),
      repeat_interval_secs: repeat.optional(),
      enabled: z.boolean().optional(),
      rotate_secret: z.boolean().optional().describe("issue a new signing secret (returned once)"),
    })
    .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "give at least one field to change", path: ["name"] }),
  response: webhookSchema.extend({ secret: z.string().nullable().describe("a new signing secret, when one was issued") }),
  summary: "Change, enable or disable a webhook, or rotate its secret.",
});
export const deleteWebhook = contract({
  method: "DELETE", path: "/api/webhooks/{id}", tag, scope: "admin", response: webhookSchema,
  summary: "Delete a webhook and its delivery history.",
});
export const testWebhook = contract({
  method: "POST", path: "/api/webhooks/{id}/test", tag, scope: "admin",
  response: z.object({ ok: z.boolean(), status_code: z.int().nullable(), error: z.string().nullable(), duration_ms: z.int(), delivery: deliverySchema }),
  summary: "Send a test alert now (one attempt) and report the receiver's answer.",
});
export const listDeliveries = contract({
  method: "GET", path: "/api/webhooks/{id}/deliveries", tag, scope: "admin",
  query: z.object({
    limit: z.string().regex(/^\d+$/, "expected a positive integer").transform(Number).refine((n) => n >= 1 && n <= 500, "expected 1 to 500").optional(),
  }),
  response: z.array(deliverySchema),
  summary: "A webhook's recent deliveries, newest first: status, attempts, last error.",
});
