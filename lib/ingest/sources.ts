// Per-source arrival tracking: each ingest transaction upserts one IngestSource row per agent
// name it carried (one multi-row statement), so the Connect page can show when data last
// arrived through each way in, and from whom.
import { marks, type Sql } from "../db/sql";
import type { IngestSource } from "../domain/sources";
import { nowNs } from "../domain/time";

/** One item of a batch: the agent it names (if any) and whether it was newly stored. */
export type Arrival = { agentName: string | null | undefined; stored: boolean };

const MAX_AGENT_NAME = 200;
const ROWS_PER_STATEMENT = 1000;

/** Records that `arrivals` came in through `source` now (in the caller's transaction). */
export async function recordArrivals(sql: Sql, source: IngestSource, arrivals: Arrival[], at: bigint = nowNs()): Promise<void> {
  if (!arrivals.length) return;
  const calls = new Map<string, number>();
  for (const a of arrivals) {
    const name = (a.agentName ?? "").slice(0, MAX_AGENT_NAME);
    calls.set(name, (calls.get(name) ?? 0) + (a.stored ? 1 : 0));
  }
  // in one order (by agent name), so that concurrent batches lock their rows without deadlocks
  const rows = [...calls].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const slice = rows.slice(i, i + ROWS_PER_STATEMENT);
    const params = slice.flatMap(([name, n]) => [source, name, at, n]);
    const tuples = Array(slice.length).fill(`(${marks(4)})`).join(", ");
    await sql.run(
      `INSERT INTO "IngestSource" ("source", "agentName", "lastSeenNs", "calls") VALUES ${tuples} ` +
        `ON CONFLICT ("source", "agentName") DO UPDATE SET "lastSeenNs" = excluded."lastSeenNs", "calls" = "IngestSource"."calls" + excluded."calls"`,
      params,
    );
  }
}
