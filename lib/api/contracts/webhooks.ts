// Alert webhooks (SPEC §7, issue 15): admins configure rules (each new interruption, or a rate)
// and their channel (generic JSON, Slack, PagerDuty, email), see deliveries, send a test.
import { z } from "zod";
import { PAGERDUTY_EVENTS_URL } from "../../alerts/channels/pagerduty";
import { RATE_LIMITS } from "../../alerts/rate";
import { ALERT_EVENTS, DELIVERY_STATUSES, RULE_KINDS, WEBHOOK_KINDS } from "../../alerts/rules";
import { INTERRUPTION_TYPES, SEVERITIES } from "../../domain/interruptions";
import { contract } from "../contract";

const tag = "webhooks";
const ns = z.int();

const rateStateSchema = z
  .object({
    firing: z.boolean(),
    number: z.int().describe("how many times the rule has fired (the current firing's number while it fires)"),
    fired_at_ns: ns.nullable(),
    fired_count: z.int().describe("the count that fired it"),
    resolved_at_ns: ns.nullable(),
    resolved_count: z.int(),
  })
  .nullable()
  .describe("rate rules: whether the rule fires now, and its last firing (null before its first evaluation)");

const webhookSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().describe("generic and slack: the receiver; pagerduty: the Events API v2 endpoint; email: mailto:<recipients>"),
  kind: z.enum(WEBHOOK_KINDS),
  email_to: z.array(z.string()).describe("email: the recipients (empty for other kinds)"),
  routing_key_hint: z.string().nullable().describe("pagerduty: the last four characters of the routing key (the key itself is never returned)"),
  rule: z.enum(RULE_KINDS).describe("each: every new or regressed interruption that matches; rate: at least rate_threshold matching interruptions within rate_window_secs"),
  rate_threshold: z.int().nullable(),
  rate_window_secs: z.int().nullable(),
  rate_state: rateStateSchema,
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
  url: z.string().nullable().describe("the alert's link: the interruption, or for a rate alert the inbox filtered as the rule"),
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
const rule = z.enum(RULE_KINDS, { message: `expected one of ${RULE_KINDS.join(", ")}` });
const routingKey = z.string().trim().min(1).max(200).describe("pagerduty: the integration key (routing_key) of an Events API v2 integration; never returned");
const emailTo = z
  .array(z.string().trim().max(254).pipe(z.email({ message: "not a valid email address" })))
  .min(1)
  .max(20)
  .describe("email: the recipients (1 to 20). Needs smtp.host and smtp.from in the server's configuration (400 otherwise)");
const rateThreshold = z.int().min(RATE_LIMITS.minThreshold).max(RATE_LIMITS.maxThreshold).describe("rate rules: fire at this many matching interruptions within the window");
const rateWindow = z
  .int()
  .min(RATE_LIMITS.minWindowSecs)
  .max(RATE_LIMITS.maxWindowSecs)
  .describe("rate rules: the window in seconds (60 to 604800); also the shortest time between two firings");
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
  body: z
    .object({
      name,
      kind: kind.default("generic"),
      url: httpUrl
        .optional()
        .describe(
          `generic, slack (required): where alerts are POSTed; pagerduty: the Events API v2 endpoint (default ${PAGERDUTY_EVENTS_URL}); not for email. Must not be (or resolve to) a loopback, private, link-local, metadata or other non-public address unless outbound.allow_private lists its range (400)`,
        ),
      routing_key: routingKey.optional(),
      email_to: emailTo.optional(),
      rule: rule.default("each"),
      rate_threshold: rateThreshold.optional(),
      rate_window_secs: rateWindow.optional(),
      min_severity: minSeverity.default("high"),
      types: types.default([]),
      agents: agents.default([]),
      repeat_interval_secs: repeat.default(3600).describe("each rules: seconds without a second alert for the same fingerprint; 0 alerts on every interruption"),
      enabled: z.boolean().default(true),
    })
    .superRefine((b, ctx) => {
      const need = (field: string, message: string) => ctx.addIssue({ code: "custom", path: [field], message });
      if ((b.kind === "generic" || b.kind === "slack") && !b.url) need("url", `required for a ${b.kind} webhook`);
      if (b.kind === "pagerduty" && !b.routing_key) need("routing_key", "required for a PagerDuty webhook");
      if (b.kind === "email" && !b.email_to) need("email_to", "required for an email webhook");
      if (b.kind === "email" && b.url) need("url", "not for an email webhook (give email_to)");
      if (b.rule === "rate" && b.rate_threshold === undefined) need("rate_threshold", "required for a rate rule");
      if (b.rule === "rate" && b.rate_window_secs === undefined) need("rate_window_secs", "required for a rate rule");
    }),
  response: webhookSchema.extend({ secret: z.string().nullable().describe("generic webhooks: the signing secret, shown only in this response") }),
  summary: "Add a webhook (a rule and its channel); a generic one gets an HMAC signing secret, returned once.",
});
export const getWebhook = contract({
  method: "GET", path: "/api/webhooks/{id}", tag, scope: "admin", response: webhookSchema,
  summary: "One webhook, with the state of its rate rule.",
});
export const updateWebhook = contract({
  method: "POST", path: "/api/webhooks/{id}", tag, scope: "admin",
  body: z
    .object({
      name: name.optional(),
      url: httpUrl.optional(),
      kind: kind.optional(),
      routing_key: routingKey.optional(),
      email_to: emailTo.optional(),
      rule: rule.optional(),
      rate_threshold: rateThreshold.optional(),
      rate_window_secs: rateWindow.optional(),
      min_severity: minSeverity.optional(),
      types: types.optional(),
      agents: agents.optional(),
      repeat_interval_secs: repeat.optional(),
      enabled: z.boolean().optional(),
      rotate_secret: z.boolean().optional().describe("issue a new signing secret (returned once)"),
    })
    .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "give at least one field to change", path: ["name"] }),
  response: webhookSchema.extend({ secret: z.string().nullable().describe("a new signing secret, when one was issued") }),
  summary: "Change, enable or disable a webhook, or rotate its secret. A new kind or rule forgets what the webhook had fired.",
});
export const deleteWebhook = contract({
  method: "DELETE", path: "/api/webhooks/{id}", tag, scope: "admin", response: webhookSchema,
  summary: "Delete a webhook, its delivery history and its rule's state.",
});
export const testWebhook = contract({
  method: "POST", path: "/api/webhooks/{id}/test", tag, scope: "admin",
  response: z.object({ ok: z.boolean(), status_code: z.int().nullable(), error: z.string().nullable(), duration_ms: z.int(), delivery: deliverySchema }),
  summary: "Send a sample of the webhook's alert now (one attempt; PagerDuty: a trigger, then its resolve) and report the receiver's answer.",
});
export const listDeliveries = contract({
  method: "GET", path: "/api/webhooks/{id}/deliveries", tag, scope: "admin",
  query: z.object({
    limit: z.string().regex(/^\d+$/, "expected a positive integer").transform(Number).refine((n) => n >= 1 && n <= 500, "expected 1 to 500").optional(),
  }),
  response: z.array(deliverySchema),
  summary: "A webhook's recent deliveries, newest first: status, attempts, last error.",
});
