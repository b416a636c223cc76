// Ingest sources (the IngestSource table, written by lib/ingest/sources.ts) as the API shows them.
import { INGEST_SOURCES, type IngestSource } from "../../domain/sources";
import type { DbTx } from "../client";

export const MAX_AGENTS_PER_SOURCE = 50;

export type SourceRecord = {
  source: IngestSource;
  last_seen_ns: bigint | null;
  calls: number;
  agents: Array<{ agent_name: string; last_seen_ns: bigint; calls: number }>;
};

/** Every source in INGEST_SOURCES order, with its agents most recent first. */
export async function listSources(db: DbTx): Promise<SourceRecord[]> {
  const rows = await db.ingestSource.findMany({ orderBy: [{ lastSeenNs: "desc" }, { agentName: "asc" }] });
  const bySource = new Map<string, SourceRecord>(INGEST_SOURCES.map((source) => [source, { source, last_seen_ns: null, calls: 0, agents: [] }]));
  for (const r of rows) {
    const s = bySource.get(r.source);
    if (!s) continue;
    if (s.last_seen_ns === null || r.lastSeenNs > s.last_seen_ns) s.last_seen_ns = r.lastSeenNs;
    // a 64-bit column; as a JSON number it stays exact up to 2^53
    const calls = Number(r.calls);
    s.calls += calls;
    if (r.agentName && s.agents.length < MAX_AGENTS_PER_SOURCE) s.agents.push({ agent_name: r.agentName, last_seen_ns: r.lastSeenNs, calls });
  }
  return [...bySource.values()];
}
