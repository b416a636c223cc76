// The ingest API's calls are stored through one group commit per database client (per server
// process): concurrent requests share transactions (./groupCommit.ts), each still answered for
// its own calls and only once they are committed.
import type { Db } from "../db/client";
import { dialectOf } from "../db/sql";
import type { IngestSource } from "../domain/sources";
import { GroupCommit } from "./groupCommit";
import type { Prepared } from "./prepare";
import { ingestRequests, type IngestRequest, type IngestResult } from "./storeCalls";

/**
 * Calls per shared transaction. Beyond a few hundred, a transaction's fixed cost is paid off
 * already, and a larger group only keeps its first requests waiting longer (on SQLite the
 * statements run synchronously: a larger group holds the event loop longer).
 */
export const MAX_GROUP_CALLS = 250;

/**
 * Shared transactions one process runs at once on PostgreSQL: while one waits on the database,
 * the next group is read and its detection runs. Two took batches of 50 from 1,810 to 2,050
 * calls/s (16 clients); three or four no more, one-call requests the same either way. SQLite's
 * transactions share one connection: one at a time there.
 */
const POSTGRES_CONCURRENT_GROUPS = 2;

/** The longest a transaction about to start waits for requests being read and validated to join it. */
const GATHER_MS = 5;

// Kept on the client object: Next.js may load this module once per route bundle, and each
// bundle's copy must feed the same queue.
const QUEUE = Symbol.for("sightdesk.ingestGroupCommit");
type WithQueue = { [QUEUE]?: GroupCommit<IngestRequest, IngestResult> };

function queueOf(db: Db): GroupCommit<IngestRequest, IngestResult> {
  const holder = db as unknown as WithQueue;
  return (holder[QUEUE] ??= new GroupCommit((group) => ingestRequests(db, group), {
    sizeOf: (r) => r.calls.length,
    maxGroupSize: MAX_GROUP_CALLS,
    gatherMs: GATHER_MS,
    concurrency: dialectOf(db) === "postgres" ? POSTGRES_CONCURRENT_GROUPS : 1,
  }));
}

/** Runs `prepare` (reading and validating an ingest request's calls) so that the next transaction waits for them. */
export function arrivingCalls<T>(db: Db, prepare: () => Promise<T>): Promise<T> {
  return queueOf(db).arrive(prepare);
}

/** `ingestPrepared`, sharing a transaction with the requests that arrive meanwhile. */
export function ingestGrouped(db: Db, calls: Prepared[], source: IngestSource = "api"): Promise<IngestResult> {
  return queueOf(db).submit({ calls, source });
}
