// Ingest of normalized calls (SPEC §2.1, §3): one transaction per batch; calls already stored
// are skipped (call_id is the idempotency key); detection runs on the same data, in the same
// transaction, before anything is written. The parts, in the order a batch meets them:
// prepare.ts (pure, maybe off-thread) → messageStore.ts (which nodes are new) → batchState.ts
// (rows read) → per call: touchState.ts, messageStore.ts, toolCalls.ts, detection.ts, rows.ts
// → writeBatch.ts → afterCommit.ts.
import { detectionConfig, type DetectionConfig } from "../config/detection";
import { existingIds } from "../db/multiRow";
import type { Db } from "../db/client";
import { lockKeys, sqlTransaction } from "../db/sql";
import { emitDeadLoopDetections } from "./afterCommit";
import { loadBatchState, loadToolCalls } from "./batchState";
import { BatchDetection, interruptionContext } from "./detection";
import { stampAtCommit } from "./interruptions";
import { knownNodes, markNewSuffixes, MessageStore, probedNodeIds } from "./messageStore";
import { blobLockKey, callLockKeys } from "./keys";
import { prepareCall, ThinHistoryError, type Prepared } from "./prepare";
import { CallRows } from "./rows";
import { recordToolCalls, toolCallRowIdsAdded, toolCallRowIdsFrom } from "./toolCalls";
import { touchCall } from "./touchState";
import type { NormalizedCall } from "../domain/calls";
import { writeAgents, writeBatch, type CallBatch } from "./writeBatch";
import type { IngestSource } from "../domain/sources";
import { recordArrivals } from "./sources";

/** How many of a history's last messages the first read of a batch takes as new (see ingestRequests). */
const LIKELY_NEW_MESSAGES = 3;

/** `ignored`: raw exchanges left out, not being model calls (a model list, embeddings) that succeeded. */
export type IngestResult = { received: number; accepted: number; duplicates: number; interruptions: number; ignored?: number };

/** Fresh calls of the batch: not `stored` yet, first occurrence only, in time order. */
function freshCalls(prepared: Prepared[], stored: Set<string>): Prepared[] {
  const seen = new Set<string>();
  const fresh = prepared.filter(({ call: c }) => {
    if (stored.has(c.call_id) || seen.has(c.call_id)) return false;
    seen.add(c.call_id);
    return true;
  });
  return fresh.sort((a, b) => (a.call.start_ns < b.call.start_ns ? -1 : a.call.start_ns > b.call.start_ns ? 1 : 0));
}

const blobKeys = (p: Prepared): string[] => [p.systemBlob, p.toolsBlob].flatMap((b) => (b ? [blobLockKey(b.id)] : []));

/** One call's share of the batch: its rows' state, new messages, tool calls, findings and Call row. */
function addCall(batch: CallBatch, p: Prepared): void {
  const at = p.endNs ?? p.call.start_ns;
  const { conversation, turn } = touchCall(batch.state, p, at);
  batch.messages.add(p);
  const ctx = interruptionContext(p);
  for (const t of recordToolCalls(batch.state.toolCalls, p)) batch.detection.candidate(t.id, t.finding, at, ctx); // the end of the call that shows it (SPEC §3.1)
  const balance = batch.detection.detectCall(p, conversation, turn, at, ctx);
  batch.calls.add(p, balance);
}

/** Stores a batch of normalized calls and their interruptions, atomically and idempotently. */
export function ingestCalls(db: Db, calls: NormalizedCall[], cfg: DetectionConfig = detectionConfig(), source: IngestSource = "api"): Promise<IngestResult> {
  return ingestPrepared(db, calls.map(prepareCall), cfg, source);
}

/** `ingestCalls` of calls read by `prepareCall` (perhaps on another thread), arrived through `source`. */
export async function ingestPrepared(db: Db, calls: Prepared[], cfg: DetectionConfig = detectionConfig(), source: IngestSource = "api"): Promise<IngestResult> {
  return (await ingestRequests(db, [{ calls, source }], cfg))[0];
}

/** One ingest request's calls (validated on their own) and the way they came in. */
export type IngestRequest = { calls: Prepared[]; source: IngestSource };

/**
 * Stores several requests' calls in one transaction, as one batch would be stored (a call_id
 * sent twice is stored for the first request that sent it), and answers each request for its
 * own calls. All or nothing: when it throws, nothing of any request was written.
 */
export async function ingestRequests(db: Db, requests: IngestRequest[], cfg: DetectionConfig = detectionConfig()): Promise<IngestResult[]> {
  const calls = requests.flatMap((r) => r.calls);
  const requestOf = new Map<Prepared, number>(requests.flatMap((r, i) => r.calls.map((p) => [p, i] as const)));
  const deadLoopSessions: string[] = [];
  const results = await sqlTransaction(db, async (sql) => {
    // Everything the batch reads, issued at once (one round trip on PostgreSQL, after the
    // session locks it starts with), for all its calls: what belongs to calls stored already
    // is read for nothing. Tool calls are read for the messages a call most likely adds: those
    // its conversation's previous call did not carry, and at most its last few (a history is
    // mostly stored already); the transaction reads any others it needs below.
    const toolCallsRead = toolCallRowIdsFrom(calls, (p) => Math.max(p.reused, p.inputTools.length - LIKELY_NEW_MESSAGES));
    const [, stored, probed, state] = await Promise.all([
      // a session's state is read, then rewritten; a conversation's stored messages are read (the
      // sweep deletes them under its key); which calls are stored already is read. A blob a call
      // names stays until it commits (the sweep deletes unnamed ones under their keys); shared:
      // every call of an agent names its prompt, and its transactions must not queue on it
      lockKeys(sql, [...calls.flatMap((p) => [p.keys.sessionId, p.keys.conversationId]), ...callLockKeys(calls.map((p) => p.call.call_id))], calls.flatMap(blobKeys)),
      existingIds(sql, "Call", calls.map((p) => p.call.call_id)),
      existingIds(sql, "Message", probedNodeIds(calls)),
      loadBatchState(sql, calls, toolCallsRead),
    ]);
    const prepared = freshCalls(calls, stored);
    const results = requests.map((r): IngestResult => ({ received: r.calls.length, accepted: 0, duplicates: r.calls.length, interruptions: 0 }));
    for (const p of prepared) {
      const result = results[requestOf.get(p)!];
      result.accepted += 1;
      result.duplicates -= 1;
    }
    // last: on PostgreSQL the upserted rows stay locked until commit, and every batch of an agent
    // touches its row; sources in one order, like the rows of each (no deadlocks between processes)
    const fresh = new Set(prepared);
    const arrived = async () => {
      for (const source of [...new Set(requests.map((r) => r.source))].sort()) {
        const arrivals = requests.filter((r) => r.source === source).flatMap((r) => r.calls.map((p) => ({ agentName: p.call.agent_name, stored: fresh.has(p) })));
        await recordArrivals(sql, source, arrivals);
      }
    };
    if (!prepared.length) {
      await arrived();
      return results;
    }
    const known = await knownNodes(sql, prepared, probed);
    markNewSuffixes(prepared, known);
    // a call that came thin needs its earlier messages stored (storePrepared prepares it again)
    if (prepared.some((p) => p.newInputStart < p.thinInput)) throw new ThinHistoryError();
    const read = new Set(toolCallsRead);
    const unread = toolCallRowIdsAdded(prepared).filter((id) => !read.has(id));
    if (unread.length) for (const [id, tc] of await loadToolCalls(sql, unread)) state.toolCalls.set(id, tc);
    const batch: CallBatch = { state, messages: new MessageStore(known), calls: new CallRows(), detection: new BatchDetection(cfg, state.grouped) };
    for (const p of prepared) addCall(batch, p);
    const created = await writeBatch(sql, batch);
    // every interruption a call batch creates names the call that showed it
    const requestOfCall = new Map(prepared.map((p) => [p.call.call_id, requestOf.get(p)!]));
    for (const row of created) results[requestOfCall.get(row.callId ?? "") ?? 0].interruptions += 1;
    await writeAgents(sql, batch.state);
    await arrived();
    await stampAtCommit(sql, created); // last: the alert scan must see them as new when they commit
    deadLoopSessions.push(...batch.detection.deadLoopSessions);
    return results;
  });
  emitDeadLoopDetections(deadLoopSessions); // committed: listeners may act (never inside the transaction)
  return results;
}
