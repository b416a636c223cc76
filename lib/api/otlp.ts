// OTLP/HTTP trace ingest (SPEC §2.7): protobuf or JSON, optionally gzip-compressed; the answer
// is an ExportTraceServiceResponse in the request's encoding, errors a google.rpc.Status in it
// (as the OTLP specification asks), with the statuses of every other ingest route.
import { promisify } from "node:util";
import zlib from "node:zlib";
import { db } from "../db/client";
import { ingestPrepared } from "../ingest/storeCalls";
import { ingestPreparedEvents } from "../ingest/storeEvents";
import { encodeTraceResponseJson } from "../otlp/json";
import { rejectionMessage, type OtlpBatch } from "../otlp/prepare";
import { encodeStatusProtobuf, encodeTraceResponseProtobuf } from "../otlp/protobuf";
import { authenticate } from "./auth";
import { bodyLimit, readBodyBytes } from "./body";
import { ApiError, httpError } from "./errors";
import type { Contract } from "./contract";
import { prepareOtlpOffloaded } from "./ingestOffload";
import { checkSameOrigin } from "./origin";
import type { OtlpEncoding } from "./otlpBody";
import { errorResponse } from "./route";

const gunzip = promisify(zlib.gunzip);

type Encoding = OtlpEncoding;
const PROTOBUF = "application/x-protobuf";
const JSON_TYPE = "application/json";

function encodingOf(req: Request): Encoding | null {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === PROTOBUF || type === "application/protobuf") return "protobuf";
  if (type === JSON_TYPE) return "json";
  return null;
}

/** The body, inflated when gzip-compressed: the body limit applies to the inflated size too. */
export async function readOtlpBody(req: Request, limit = bodyLimit()): Promise<Buffer> {
  const raw = await readBodyBytes(req, limit);
  const coding = (req.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (coding === "identity" || coding === "") return raw;
  if (coding !== "gzip") throw new ApiError(415, `Unsupported Content-Encoding: ${coding} (gzip or none)`);
  try {
    return await gunzip(raw, { maxOutputLength: limit });
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError) throw new ApiError(413, `Request body exceeds ${limit} bytes when inflated`);
    throw new ApiError(400, `Malformed gzip body: ${(e as Error).message}`);
  }
}

/** Stores a prepared export: its calls, then its tool results (which may name the calls' tool calls). */
export async function storeOtlp(database: ReturnType<typeof db>, batch: OtlpBatch) {
  const calls = batch.calls.length ? await ingestPrepared(database, batch.calls, undefined, "otlp") : null;
  const events = batch.events.length ? await ingestPreparedEvents(database, batch.events, undefined, "otlp") : null;
  return { calls, events };
}

function answer(encoding: Encoding, status: number, body: Buffer | string, headers: Record<string, string> = {}): Response {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return new Response(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), {
    status,
    headers: { "content-type": encoding === "protobuf" ? PROTOBUF : JSON_TYPE, "cache-control": "no-store", ...headers },
  });
}

/** gRPC codes for the google.rpc.Status of an error answer. */
function grpcCode(status: number): number {
  if (status === 400 || status === 415) return 3; // INVALID_ARGUMENT
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 413 || status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  return 13; // INTERNAL
}

async function errorAnswer(encoding: Encoding, e: unknown): Promise<Response> {
  const known = httpError(e);
  // everything else (database down → 503, a bug → 500) is judged and logged as on every route
  const { status, message } = known ?? { status: 0, message: "" };
  const fallback = known ? null : errorResponse(e);
  const finalStatus = fallback?.status ?? status;
  const text = fallback ? ((await fallback.json()) as { error: string }).error : message;
  const retry: Record<string, string> = finalStatus === 429 || finalStatus === 503 ? { "retry-after": "1" } : {};
  const code = grpcCode(finalStatus);
  return encoding === "protobuf"
    ? answer(encoding, finalStatus, encodeStatusProtobuf(code, text), retry)
    : answer(encoding, finalStatus, JSON.stringify({ code, message: text, error: text }), retry);
}

/**
 * Exports being handled at once in this process; beyond the limit an exporter is told to retry
 * later (429 with Retry-After, which OTLP exporters honour) instead of queueing more bodies in memory.
 */
const inFlight = globalThis as unknown as { sightdeskOtlpInFlight?: number };
export const otlpConcurrencyLimit = () => {
  const configured = Number(process.env.SIGHTDESK_OTLP_MAX_CONCURRENT);
  return Number.isInteger(configured) && configured > 0 ? configured : 8;
};

/** The route handler of POST /api/otlp/v1/traces (contract `c` gives the scope). */
export const handleOtlpTraces = (c: Contract) => async (req: Request): Promise<Response> => {
  const encoding = encodingOf(req);
  try {
    const database = db();
    checkSameOrigin(req);
    if (c.scope) await authenticate(database, req, c.scope);
    if (!encoding) throw new ApiError(415, `Unsupported Content-Type: expected ${PROTOBUF} or ${JSON_TYPE}`);
    if ((inFlight.sightdeskOtlpInFlight ?? 0) >= otlpConcurrencyLimit()) throw new ApiError(429, "Too many OTLP exports at once: retry later");
    inFlight.sightdeskOtlpInFlight = (inFlight.sightdeskOtlpInFlight ?? 0) + 1;
    let batch: OtlpBatch;
    try {
      batch = await prepareOtlpOffloaded(encoding, await readOtlpBody(req));
      await storeOtlp(database, batch);
    } finally {
      inFlight.sightdeskOtlpInFlight! -= 1;
    }
    const message = rejectionMessage(batch);
    return answer(encoding, 200, encoding === "protobuf" ? encodeTraceResponseProtobuf(batch.rejected, message) : encodeTraceResponseJson(batch.rejected, message));
  } catch (e) {
    return errorAnswer(encoding ?? "json", e);
  }
};
