// Loads the demo into a database through the same validation and ingest path as the HTTP
// routes (lib/api/ingest.ts). Idempotent: the base time of the first load is kept in the
// Setting table, so a second load regenerates identical payloads and ingest skips them all.
import { ingestCallBatch, ingestEventBatch, ingestHttpBatch } from "../api/ingest";
import type { Db } from "../db/client";
import { defaultDemoBase, generateDemo, type DemoData } from "./scenarios";

export const DEMO_BASE_SETTING = "demo.base_ns";
const CALL_BATCH = 100;
const EVENT_BATCH = 200;

export type DemoLoadResult = {
  /** calls stored by this load (0 when the demo was already loaded) */
  calls: number;
  /** interruptions opened by this load */
  interruptions: number;
  /** the demo's session ids (sent or derived) */
  sessions: string[];
  /** calls that were already stored */
  duplicates: number;
  /** empty_response findings withdrawn by steered / drained turn ends */
  withdrawn: number;
  /** the base time the demo was generated for */
  baseNs: bigint;
};

/** The stored demo base time, or `fallback` (stored for next time) on the first load. */
export async function demoBase(db: Db, fallback: bigint): Promise<bigint> {
  const row = await db.setting.findUnique({ where: { key: DEMO_BASE_SETTING } });
  if (row && /^\d{1,20}$/.test(row.value)) return BigInt(row.value);
  await db.setting.upsert({
    where: { key: DEMO_BASE_SETTING },
    create: { key: DEMO_BASE_SETTING, value: fallback.toString() },
    update: { value: fallback.toString() },
  });
  return fallback;
}

type Item = { route: "calls" | "http"; at: bigint; payload: unknown };

/** One ingest request: the route under /api/ingest and the payloads of one batch. */
export type DemoRequest = { route: "calls" | "http" | "events"; payloads: unknown[] };

/**
 * The demo as ingest batches in the order they must be sent: calls and raw exchanges merged into
 * one timeline (so every conversation is ingested in order), at most CALL_BATCH per batch, then
 * the lifecycle events, which refer to those calls.
 */
export function demoRequests(data: DemoData): DemoRequest[] {
  const items: Item[] = [
    ...data.calls.map((c): Item => ({ route: "calls", at: BigInt(c.start_ns), payload: c })),
    ...data.exchanges.map((x): Item => ({ route: "http", at: BigInt(x.start_ns), payload: x })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const out: DemoRequest[] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last && last.route === item.route && last.payloads.length < CALL_BATCH) last.payloads.push(item.payload);
    else out.push({ route: item.route, payloads: [item.payload] });
  }
  for (let i = 0; i < data.events.length; i += EVENT_BATCH) out.push({ route: "events", payloads: data.events.slice(i, i + EVENT_BATCH) });
  return out;
}

/**
 * Ingests the demo through the ingest code (the order of `demoRequests`).
 * `baseNs` is used only on the first load; later loads reuse the stored base.
 */
export async function loadDemo(db: Db, baseNs: bigint = defaultDemoBase()): Promise<DemoLoadResult> {
  const base = await demoBase(db, baseNs);
  const data = generateDemo(base);
  const result: DemoLoadResult = { calls: 0, interruptions: 0, sessions: [], duplicates: 0, withdrawn: 0, baseNs: base };
  for (const batch of demoRequests(data)) {
    if (batch.route === "events") {
      const r = await ingestEventBatch(db, batch.payloads);
      result.interruptions += r.interruptions;
      result.withdrawn += r.withdrawn;
      continue;
    }
    const r = batch.route === "calls" ? await ingestCallBatch(db, batch.payloads) : await ingestHttpBatch(db, batch.payloads);
    result.calls += r.accepted;
    result.duplicates += r.duplicates;
    result.interruptions += r.interruptions;
  }

  const ids = [...data.calls.map((c) => c.call_id), ...data.exchanges.map((x) => x.call_id)];
  const sessions = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.call.findMany({ where: { id: { in: ids.slice(i, i + 500) } }, select: { sessionId: true } });
    for (const r of rows) if (r.sessionId) sessions.add(r.sessionId);
  }
  result.sessions = [...sessions].sort();
  return result;
}
