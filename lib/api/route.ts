// The route factory: a handler names its contract; this file does auth, parsing (400 naming
// the field), error mapping and exact-integer JSON, so handlers stay a few lines long.
import { db, type Db } from "../db/client";
import { groupBy } from "../groupBy";
import type { Actor } from "../auth/actor";
import { authenticate } from "./auth";
import { bodyLimit, CONTROL_BODY_LIMIT, MAX_CONTROL_BODY_CONTAINERS, readBodyBytes, readFormBody, readJsonBody } from "./body";
import type { Contract } from "./contract";
import { httpError } from "./errors";
import type { IngestKind, PreparedBatch } from "./ingest";
import { prepareIngest } from "./ingestOffload";
import { arrivingCalls } from "../ingest/groupedIngest";
import { stringifyExact } from "../wire/json";
import { checkSameOrigin } from "./origin";
import { parseBatch, parseOrThrow, parseQuery } from "./validation";

type Params = Record<string, string>;

export type HandlerContext<Q, B> = {
  req: Request;
  db: Db;
  /** who is calling; null only on routes without a scope */
  actor: Actor;
  query: Q;
  body: B;
  params: Params;
};

export function json(value: unknown, status = 200, headers: HeadersInit = {}): Response {
  return jsonText(stringifyExact(value), status, headers);
}

/** An answer whose JSON text is written already (e.g. by the database). */
export function jsonText(text: string, status = 200, headers: HeadersInit = {}): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** An /api path that no route serves: a JSON error like every other (not Next's HTML page). */
export function noSuchRoute(req: Request): Response {
  return json({ error: `No API route ${req.method} ${new URL(req.url).pathname}` }, 404);
}

function isDatabaseDown(e: unknown): boolean {
  const text = `${(e as { code?: string })?.code ?? ""} ${(e as Error)?.message ?? ""}`;
  return /SQLITE_CANTOPEN|SQLITE_BUSY|database is locked|ECONNREFUSED|P1001|P1017|Can't reach database|SocketTimeout|DatabaseNotReachable/i.test(text);
}

export function errorResponse(e: unknown): Response {
  const known = httpError(e);
  if (known) return json({ error: known.message }, known.status);
  if (isDatabaseDown(e)) return json({ error: "Database unavailable" }, 503);
  console.error("[api] unhandled error:", (e as Error)?.stack ?? e);
  return json({ error: "Internal server error" }, 500);
}

const ANONYMOUS: Actor = { kind: "token", id: "", name: "anonymous", scopes: [] };

async function parseBody<B>(c: Contract<unknown, B>, req: Request, batch: boolean): Promise<B> {
  if (!c.body) return undefined as B;
  if (c.bodyType === "multipart") return parseOrThrow(c.body, await readFormBody(req));
  const raw = await readJsonBody(req, {
    allowEmpty: !batch && c.body.safeParse(undefined).success,
    limit: Math.min(bodyLimit(), CONTROL_BODY_LIMIT),
    maxContainers: MAX_CONTROL_BODY_CONTAINERS,
  });
  return (batch ? parseBatch(c.body, raw) : parseOrThrow(c.body, raw)) as B;
}

/** A query string as an object: a name given more than once holds all its values (see params.ts's listText). */
function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const byName = groupBy(params, ([name]) => name);
  return Object.fromEntries([...byName].map(([name, pairs]) => [name, pairs.length === 1 ? pairs[0][1] : pairs.map(([, value]) => value)]));
}

/**
 * A Next.js route handler for `c`. With `batch`, the body may be one object or an array and
 * each item is validated against `c.body` (the handler then receives an array).
 */
export function handle<Q, B, R>(
  c: Contract<Q, B>,
  handler: (ctx: HandlerContext<Q, B>) => Promise<R | Response>,
  options: { batch?: boolean; readBody?: (req: Request) => Promise<B> } = {},
) {
  return async (req: Request, ctx: { params?: Promise<Params> }): Promise<Response> => {
    try {
      const database = db();
      if (c.method !== "GET") checkSameOrigin(req);
      const actor = c.scope ? await authenticate(database, req, c.scope) : ANONYMOUS;
      const params = (await ctx?.params) ?? {};
      const query = c.query ? parseQuery(c.query, queryObject(new URL(req.url).searchParams)) : (undefined as Q);
      const body = options.readBody ? await options.readBody(req) : await parseBody(c as Contract<unknown, B>, req, options.batch === true);
      const result = await handler({ req, db: database, actor, query, body, params });
      return result instanceof Response ? result : json(result, c.status ?? 200);
    } catch (e) {
      return errorResponse(e);
    }
  };
}

/** A route whose body is one object or an array of them, each validated against `c.body`. */
export function handleBatch<Q, B, R>(c: Contract<Q, B>, handler: (ctx: HandlerContext<Q, B[]>) => Promise<R | Response>) {
  return handle(c as unknown as Contract<Q, B[]>, handler, { batch: true });
}

/**
 * An ingest route (SPEC §2): the body (one object or an array, validated against `c.body`) is
 * read as bytes, then decoded and prepared on the ingest worker thread (ingestOffload.ts) before
 * `handler` stores it. Calls being read are announced to the group commit, which waits for them.
 */
export function handleIngest<Q, R>(c: Contract<Q, unknown>, kind: IngestKind, handler: (ctx: HandlerContext<Q, PreparedBatch>) => Promise<R | Response>) {
  return handle(c as unknown as Contract<Q, PreparedBatch>, handler, {
    readBody: async (req) => {
      // the bytes first: a body still coming in (a slow upload) is no arrival the group commit waits for
      const bytes = await readBodyBytes(req);
      const prepare = () => prepareIngest(kind, bytes);
      return kind === "events" ? prepare() : arrivingCalls(db(), prepare);
    },
  });
}
