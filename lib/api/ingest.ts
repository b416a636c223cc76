// Ingest request handling shared by the three ingest routes, the demo and the benchmarks: a
// body's text is parsed, validated (400 naming the item and field) and prepared — everything
// that reads its untrusted text — by `prepareIngestBytes`, a pure function that may run on the
// ingest worker thread (ingestOffload.ts); storing the prepared batch is the database's part.
import type { Db } from "../db/client";
import { exchangeFailed, isModelCall, normalizeExchange } from "../ingest/adapters";
import { prepareCall, thinned, ThinHistoryError, type Prepared } from "../ingest/prepare";
import { callSchema, eventSchema, httpExchangeSchema } from "../ingest/schema";
import { ingestGrouped } from "../ingest/groupedIngest";
import { ingestPrepared, type IngestResult } from "../ingest/storeCalls";
import { ingestPreparedEvents, prepareEvent, type EventResult, type PreparedEvent } from "../ingest/storeEvents";
import { SOURCE_HEADER, sourceFromHeader, type IngestSource } from "../domain/sources";
import { parseJsonBytes } from "./body";
import { parseCallBatch } from "./callBatch";
import { parseBatch } from "./validation";

export type IngestKind = "calls" | "http" | "events";
/**
 * `whole`: the calls prepared again, none thin, when they came thin (`thinnedBatch`); `ignored`:
 * exchanges left out, not being model calls (a model list, embeddings) that succeeded.
 */
export type PreparedBatch = { kind: "calls" | "http"; calls: Prepared[]; whole?: () => Promise<Prepared[]>; ignored?: number } | { kind: "events"; events: PreparedEvent[] };

type PreparedCalls = { calls: Prepared[]; ignored: number };

function prepareCalls(kind: "calls" | "http", body: unknown): PreparedCalls {
  if (kind === "calls") return { calls: parseBatch(callSchema, body).map(prepareCall), ignored: 0 };
  const exchanges = parseBatch(httpExchangeSchema, body);
  const kept = exchanges.filter((x) => isModelCall(x) || exchangeFailed(x)); // a failed one is the agent's failure too
  return { calls: kept.map((x) => prepareCall(normalizeExchange(x))), ignored: exchanges.length - kept.length };
}

/** The result of a batch with its ignored exchanges counted as received. */
const withIgnored = <R extends IngestResult>(result: R, ignored = 0): R => (ignored ? { ...result, received: result.received + ignored, ignored } : result);

const prepareEvents = (body: unknown): PreparedEvent[] => parseBatch(eventSchema, body).map(prepareEvent);

/** Parses, validates and prepares an ingest body of `kind` (throws ApiError 400 on bad input). */
export function prepareIngestBody(kind: IngestKind, body: unknown): PreparedBatch {
  return kind === "events" ? { kind, events: prepareEvents(body) } : { kind, ...prepareCalls(kind, body) };
}

/** `prepareIngestBody` of a body's UTF-8 JSON. */
export function prepareIngestBytes(kind: IngestKind, bytes: Buffer): PreparedBatch {
  if (kind === "calls") return { kind, calls: parseCallBatch(bytes).map(prepareCall), ignored: 0 };
  return prepareIngestBody(kind, parseJsonBytes(bytes));
}

/** The batch for the thread that stores it: its calls `thinned`. */
export const thinnedBatch = (batch: PreparedBatch): PreparedBatch => (batch.kind === "events" ? batch : { ...batch, calls: batch.calls.map(thinned) });

/**
 * Stores a prepared batch that arrived through `source` (the REST ingest API unless told). Calls
 * share a transaction with other requests arriving meanwhile (group commit); the answer comes
 * after that transaction committed. Calls that came thin, naming earlier messages that are not
 * stored after all, are prepared again whole and stored then.
 */
export async function storePrepared(db: Db, batch: PreparedBatch, source: IngestSource = "api"): Promise<IngestResult | EventResult> {
  if (batch.kind === "events") return ingestPreparedEvents(db, batch.events, undefined, source);
  try {
    return withIgnored(await ingestGrouped(db, batch.calls, source), batch.ignored);
  } catch (e) {
    // only the worker thins calls, and prepareIngest gives what it prepares a `whole`
    if (!(e instanceof ThinHistoryError) || !batch.whole) throw e;
    const whole = await batch.whole();
    console.warn(`[ingest] ${whole.length} call(s) prepared again whole: their conversation's earlier messages were not stored`);
    return withIgnored(await ingestGrouped(db, whole, source), batch.ignored);
  }
}

/**
 * The source an ingest request came through: its `X-SightDesk-Source` header when that names
 * one of `allowed` (a capture layer posting for itself), else `fallback`.
 */
export const requestSource = (req: Request, allowed: readonly IngestSource[], fallback: IngestSource): IngestSource =>
  sourceFromHeader(req.headers.get(SOURCE_HEADER), allowed, fallback);

export const ingestCallBatch = (db: Db, body: unknown): Promise<IngestResult> => ingestPrepared(db, prepareCalls("calls", body).calls);
export async function ingestHttpBatch(db: Db, body: unknown): Promise<IngestResult> {
  const { calls, ignored } = prepareCalls("http", body);
  return withIgnored(await ingestPrepared(db, calls), ignored);
}
export const ingestEventBatch = (db: Db, body: unknown): Promise<EventResult> => ingestPreparedEvents(db, prepareEvents(body));
