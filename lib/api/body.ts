import { ApiError, badRequest } from "./errors";
import { jsonArrayPieces, JsonTooManyValuesError } from "../json";
import { parseJsonExact } from "../wire/json";

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;
/**
 * Most JSON objects and arrays a request body may hold. Each is an allocation, and `{},` is
 * three bytes: 10 MiB of empty objects took about 1 s and 500 MB before anything could refuse
 * them. A full 10 MiB batch of real calls holds far fewer (every message costs tens of bytes).
 */
export const MAX_BODY_CONTAINERS = 1_000_000;
/**
 * The API's own routes (views, webhooks, users, triage; not ingest) take small bodies, parsed on
 * the request thread: a bulk action's 100,000 ids (≈ 3.5 MB) at most, and few objects. A body
 * past these is refused before it is parsed (at ingest's limits, 3 MB of `{}` cost 0.3 s).
 */
export const CONTROL_BODY_LIMIT = 4 * 1024 * 1024;
export const MAX_CONTROL_BODY_CONTAINERS = 10_000;
/** File uploads (multipart bodies, e.g. AgentSight's SQLite files) are larger than JSON batches. */
export const DEFAULT_UPLOAD_LIMIT = 200 * 1024 * 1024;

function limitFrom(variable: string, fallback: number): number {
  const configured = Number(process.env[variable]);
  return Number.isFinite(configured) && configured > 0 ? configured : fallback;
}

export const bodyLimit = () => limitFrom("SIGHTDESK_MAX_BODY_BYTES", DEFAULT_BODY_LIMIT);
export const uploadLimit = () => limitFrom("SIGHTDESK_MAX_UPLOAD_BYTES", DEFAULT_UPLOAD_LIMIT);

/** The 413 of a body over `limit` bytes (also for bodies read off the socket: lib/server/directRoutes.ts). */
export const bodyTooLarge = (limit: number) => new ApiError(413, `Request body exceeds ${limit} bytes`);

/** Bodies read off the socket instead of the Request's stream (lib/server/directRoutes.ts), when the route asks for them. */
const readElsewhere = new WeakMap<Request, () => Promise<Buffer>>();

/**
 * `req` whose body `read` gives (within the limit the route applies). It is read only when the
 * route asks for it: after the caller is authenticated, so that a request without a valid token
 * is answered before its body is held in memory.
 */
export function withBodyFrom(req: Request, read: () => Promise<Buffer>): Request {
  readElsewhere.set(req, read);
  return req;
}

/** Reads a request body up to `limit` bytes (413 beyond it, without buffering the rest). */
export async function readBodyBytes(req: Request, limit = bodyLimit()): Promise<Buffer> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw bodyTooLarge(limit);
  const readBody = readElsewhere.get(req);
  if (readBody) {
    const read = await readBody();
    if (read.length > limit) throw bodyTooLarge(limit);
    return read;
  }
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

// PostgreSQL text cannot hold U+0000: a JSON `\u0000` escape (not one whose backslash is itself
// escaped) is read as U+FFFD, the same on every database.
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * `parseJsonText` of UTF-8 bytes. A large array (an ingest batch) is parsed in pieces, never
 * decoded as one string (`jsonArrayPieces`); a piece that does not parse sends the whole text to
 * `parseJsonText`, so that a fault is reported as it always was.
 */
export function parseJsonBytes(bytes: Buffer, options: { allowEmpty?: boolean; maxContainers?: number } = {}): unknown {
  const pieces = jsonArrayPieces(bytes, options.maxContainers ?? MAX_BODY_CONTAINERS);
  if (pieces) {
    try {
      return pieces.flatMap((piece) => parseJsonText(piece, options) as unknown[]);
    } catch {
      // reported below, on the whole text
    }
  }
  return parseJsonText(bytes.toString("utf8"), options);
}

/** The parsed body; an empty body is `undefined` where allowed (optional bodies), else a 400. */
export async function readJsonBody(req: Request, options: { allowEmpty?: boolean; limit?: number; maxContainers?: number } = {}): Promise<unknown> {
  return parseJsonBytes(await readBodyBytes(req, options.limit ?? bodyLimit()), options);
}

/** A body's text as JSON (exact `*_ns` integers, bounded depth); a 400 saying what is wrong. */
export function parseJsonText(text: string, options: { allowEmpty?: boolean; maxContainers?: number } = {}): unknown {
  if (!text.trim()) {
    if (options.allowEmpty) return undefined;
    throw new ApiError(400, "Request body is empty: expected JSON");
  }
  try {
    return parseJsonExact(text.includes("\\u0000") ? text.replace(NUL_ESCAPE, "$1\\ufffd") : text, options.maxContainers ?? MAX_BODY_CONTAINERS);
  } catch (e) {
    if (e instanceof JsonTooManyValuesError) throw new ApiError(400, `Request body holds ${e.message}: send fewer items per request`);
    throw new ApiError(400, `Malformed JSON: ${(e as Error).message}`);
  }
}

/**
 * A multipart/form-data body as an object of its fields (files as `File`), read up to `limit`
 * bytes (413 beyond it). A file input left empty (no name, no bytes) counts as absent; a field
 * given twice is a 400 naming it.
 */
export async function readFormBody(req: Request, limit = uploadLimit()): Promise<Record<string, FormDataEntryValue>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw badRequest("Expected a multipart/form-data body");
  const bytes = await readBodyBytes(req, limit);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), { headers: { "content-type": type } }).formData();
  } catch (e) {
    throw badRequest(`Malformed multipart/form-data body: ${(e as Error).message}`);
  }
  const fields: Record<string, FormDataEntryValue> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value !== "string" && value.size === 0 && value.name === "") continue;
    if (Object.hasOwn(fields, name)) throw badRequest(`${name}: given more than once`);
    fields[name] = value;
  }
  return fields;
}
