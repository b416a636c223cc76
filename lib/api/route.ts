// The route factory: every API handler declares its scope and schemas; this file does auth,
// parsing, error mapping and exact-integer JSON, so handlers stay a few lines long.
import type { z } from "zod";
import { db, type Db } from "../db/client";
import type { Scope } from "../auth/tokens";
import { authenticate, type Actor } from "./auth";
import { readJsonBody } from "./body";
import { ApiError } from "./errors";
import { stringifyExact } from "./json";
import { parseOrThrow } from "./validation";

type Params = Record<string, string>;

export type RouteContext<Q> = { req: Request; db: Db; actor: Actor | null; query: Q; params: Params };

type RouteOptions<Q> = {
  /** the scope the bearer token needs; null only for routes that return no data (health) */
  scope: Scope | null;
  query?: z.ZodType<Q, unknown>;
  handler: (ctx: RouteContext<Q> & { body: () => Promise<unknown> }) => Promise<unknown>;
  status?: number;
};

export function json(value: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(stringifyExact(value), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

function isDatabaseDown(e: unknown): boolean {
  const text = `${(e as { code?: string })?.code ?? ""} ${(e as Error)?.message ?? ""}`;
  return /SQLITE_CANTOPEN|SQLITE_BUSY|database is locked|ECONNREFUSED|P1001|P1017|Can't reach database/i.test(text);
}

export function errorResponse(e: unknown): Response {
  if (e instanceof ApiError) return json({ error: e.message }, e.status);
  if (isDatabaseDown(e)) return json({ error: "Database unavailable" }, 503);
  console.error("[api] unhandled error:", (e as Error)?.stack ?? e);
  return json({ error: "Internal server error" }, 500);
}

export function route<Q = Record<string, never>>(opts: RouteOptions<Q>) {
  return async (req: Request, ctx: { params?: Promise<Params> }): Promise<Response> => {
    try {
      const database = db();
      const actor = opts.scope ? await authenticate(database, req, opts.scope) : null;
      const params = (await ctx?.params) ?? {};
      const search = Object.fromEntries(new URL(req.url).searchParams);
      const query = opts.query ? parseOrThrow(opts.query, search) : ({} as Q);
      const result = await opts.handler({ req, db: database, actor, query, params, body: () => readJsonBody(req) });
      return result instanceof Response ? result : json(result, opts.status ?? 200);
    } catch (e) {
      return errorResponse(e);
    }
  };
}
