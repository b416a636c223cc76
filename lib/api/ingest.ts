// Ingest request handling shared by the three ingest routes: parse a batch, store it.
import type { Db } from "../db/client";
import { normalizeExchange } from "../ingest/adapters";
import { callSchema, eventSchema, httpExchangeSchema } from "../ingest/schema";
import { ingestCalls, type IngestResult } from "../ingest/storeCalls";
import { ingestEvents, type EventResult } from "../ingest/storeEvents";
import { parseBatch } from "./validation";

export function ingestCallBatch(db: Db, body: unknown): Promise<IngestResult> {
  return ingestCalls(db, parseBatch(callSchema, body));
}

export function ingestHttpBatch(db: Db, body: unknown): Promise<IngestResult> {
  return ingestCalls(db, parseBatch(httpExchangeSchema, body).map(normalizeExchange));
}

export function ingestEventBatch(db: Db, body: unknown): Promise<EventResult> {
  return ingestEvents(db, parseBatch(eventSchema, body));
}
