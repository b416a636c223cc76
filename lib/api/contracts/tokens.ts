import { z } from "zod";
import { SCOPES } from "../../auth/scopes";
import { MAX_NS, notToCome, nowNs } from "../../domain/time";
import { contract } from "../contract";

const tag = "tokens";
const ns = z.int();
const tokenSchema = z.object({
  id: z.string(), name: z.string(), scopes: z.array(z.enum(SCOPES)), created_by: z.string().nullable(),
  created_at_ns: ns, expires_at_ns: ns.nullable(), last_used_at_ns: ns.nullable(), revoked_at_ns: ns.nullable(),
});

/**
 * An expiry as integer nanoseconds or an ISO 8601 time; it must lie in the future. Nanoseconds
 * as a bare JSON integer are read as JSON numbers are (beyond 2^53, to within a microsecond: the
 * key is not one of the `*_ns` ones kept exact); as a string of digits, exactly.
 */
const expiry = z
  .union([z.number().refine((n) => Number.isInteger(n) && n > 0 && n < Number(MAX_NS), "expected positive integer nanoseconds"), z.string().regex(/^\d{1,20}$/), z.iso.datetime({ offset: true })])
  .transform((v, ctx) => {
    const ns = typeof v === "string" && !/^\d+$/.test(v) ? nowNs(Date.parse(v)) : BigInt(v);
    const why = notToCome(ns);
    if (why) {
      ctx.addIssue({ code: "custom", message: why });
      return z.NEVER;
    }
    return ns;
  });

export const createToken = contract({
  method: "POST", path: "/api/tokens", tag, scope: "admin", status: 201,
  body: z.object({
    name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(SCOPES)).min(1),
    expires_at: expiry.nullish().describe("integer nanoseconds or an ISO 8601 time"),
  }),
  response: tokenSchema.extend({ token: z.string().describe("the secret: shown only in this response") }),
  summary: "Create an API token; its secret is returned once.",
});
export const listTokens = contract({
  method: "GET", path: "/api/tokens", tag, scope: "admin", response: z.array(tokenSchema), summary: "Tokens, without secrets.",
});
export const revokeToken = contract({
  method: "DELETE", path: "/api/tokens/{id}", tag, scope: "admin", response: tokenSchema, summary: "Revoke a token.",
});
