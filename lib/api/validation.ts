import type { z } from "zod";
import { badRequest } from "./errors";

/** "input_messages[0].parts[1].type" from a zod issue path. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`))
    .join("");
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issuePath(issue.path);
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** Validates one value; a failure is a 400 naming the field. */
export function parseOrThrow<T>(schema: z.ZodType<T, unknown>, value: unknown, label = ""): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw badRequest(`${label}${describeIssue(issue)}`);
}

/**
 * Validates a query string read as an object (a name given more than once holds its values as
 * an array): a parameter of one value given more than once is a 400 saying so.
 */
export function parseQuery<T>(schema: z.ZodType<T, unknown>, query: Record<string, string | string[]>): T {
  const result = schema.safeParse(query, { error: (iss) => (iss.code === "invalid_type" && Array.isArray(iss.input) ? "given more than once (it takes one value)" : undefined) });
  if (result.success) return result.data;
  throw badRequest(describeIssue(result.error.issues[0]));
}

/** The most items a batch may hold. */
export const MAX_BATCH_ITEMS = 10_000;

/**
 * Validates one object or an array of them. Any invalid item rejects the whole batch with a
 * 400 naming the item index and the field.
 */
export function parseBatch<T>(schema: z.ZodType<T, unknown>, body: unknown, maxItems = MAX_BATCH_ITEMS): T[] {
  if (Array.isArray(body)) {
    if (body.length === 0) throw badRequest("Batch is empty");
    if (body.length > maxItems) throw badRequest(`Batch has ${body.length} items; at most ${maxItems} are accepted`);
    return body.map((item, index) => parseOrThrow(schema, item, `item ${index}: `));
  }
  if (body === null || typeof body !== "object") throw badRequest("Expected a JSON object or an array of objects");
  return [parseOrThrow(schema, body)];
}
