// API contracts: each route declares method, path, scope and zod schemas once. The same
// declaration validates requests (route handlers) and describes the API (/api/openapi.json).
import type { z } from "zod";
import type { Scope } from "../auth/scopes";

export type Method = "GET" | "POST" | "DELETE";

export type Contract<Q = unknown, B = unknown, R extends z.ZodType = z.ZodType> = {
  method: Method;
  /** OpenAPI-style path, e.g. /api/interruptions/{id} */
  path: string;
  summary: string;
  tag: string;
  /** the token scope required; null only for routes that return no data */
  scope: Scope | null;
  query?: z.ZodType<Q, unknown>;
  body?: z.ZodType<B, unknown>;
  /**
   * How the body arrives: JSON (the default), or multipart/form-data whose fields `body`
   * validates as an object (files as `z.file()`), up to the upload limit; or OTLP (protobuf or
   * JSON, `body` describing the JSON form).
   */
  bodyType?: "json" | "multipart" | "otlp";
  /** the response body, for documentation */
  response?: R;
  /** the success status (200 unless told) */
  status?: number;
};

const registry: Contract[] = [];

export function contract<Q = unknown, B = unknown, R extends z.ZodType = z.ZodType>(c: Contract<Q, B, R>): Contract<Q, B, R> {
  registry.push(c as unknown as Contract);
  return c;
}

/** Every contract declared so far (import lib/api/contracts to declare them all). */
export function contracts(): readonly Contract[] {
  return registry;
}
