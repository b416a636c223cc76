// The dead-loop action (SPEC §7), server side. Off by default (`deadloop.enabled`); when on, the
// server subscribes at startup and, after each ingest commit that had dead-loop detections
// (never inside the transaction, never making ingest wait), looks at each process concerned:
//  - counts its detections (see protocol.ts for the exact definition) and the requests made;
//  - decides: nothing, SIGTERM or SIGKILL (`nextSignal`);
//  - inserts a TerminateRequest row — unique per (session, signal), so under retries, concurrent
//    ingests or several server processes exactly one request per signal is ever made — and only
//    then POSTs the signed request to the forwarder registered for the process's host, with a
//    timeout; the outcome goes on the row and, as an activity entry, on the dead_loop interruption.
// Requests are made one at a time per process, in the order of the ingests.
import crypto from "node:crypto";
import { sendOnce, type FetchLike } from "../alerts/send";
import type { Db } from "../db/client";
import { outboundFetch } from "../config/outbound";
import { onDeadLoopDetections } from "../ingest/afterCommit";
import { nowNs } from "../domain/time";
import { nextSignal, TERMINATE_EVENT, TERMINATE_PATH, type TerminatePayload, type TerminateSignal } from "./protocol";

/** The actor of the activity entries. */
export const DEADLOOP_ACTOR = "sightdesk:deadloop";
const TIMEOUT_MS = 5000;

export type DeadLoopActionOptions = {
  db: Db;
  killAfterCount: number;
  fetch?: FetchLike;
  timeoutMs?: number;
  log?: (message: string) => void;
};

export type TerminateOutcome = { id: string; signal: TerminateSignal; status: "sent" | "failed"; result: string };

/**
 * A forwarder's JSON answer in a word ("signaled", "not_running"); anything else is just
 * "accepted" — the text a URL answers with is never stored.
 */
function answerOf(text: string | null | undefined): string {
  try {
    const body = JSON.parse(text ?? "") as { result?: unknown };
    if (typeof body.result === "string" && /^[a-z_]{1,40}$/.test(body.result)) return body.result;
  } catch {
    /* not JSON */
  }
  return "accepted";
}

/** What the forwarder's refusals mean (control.ts), in our words: its reply text is not stored. */
const REFUSALS: Record<number, string> = {
  400: "the forwarder could not read the request",
  401: "the forwarder refused the signature or timestamp",
  403: "not a process this forwarder has forwarded calls for",
  409: "the forwarder had handled this request already",
};

function failureOf(statusCode: number | null, error: string | null): string {
  const meaning = statusCode === null ? undefined : REFUSALS[statusCode];
  return meaning ? `${error} (${meaning})` : (error ?? "failed");
}

export class DeadLoopAction {
  private readonly db: Db;
  private readonly killAfterCount: number;
  private readonly fetchImpl: FetchLike;
  private readonly timeoutMs: number;
  private readonly log: (message: string) => void;
  /** per session, the tail of its queue of checks */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(o: DeadLoopActionOptions) {
    this.db = o.db;
    this.killAfterCount = o.killAfterCount;
    this.fetchImpl = o.fetch ?? outboundFetch();
    this.timeoutMs = o.timeoutMs ?? TIMEOUT_MS;
    this.log = o.log ?? ((m) => console.error(`[deadloop] ${m}`));
  }

  /** Queues a check of each session (called after an ingest commit; returns at once). */
  notify(sessionIds: readonly string[]): void {
    for (const id of new Set(sessionIds)) {
      const next = (this.queues.get(id) ?? Promise.resolve())
        .then(() => this.consider(id))
        .catch((e) => this.log(`session ${id}: ${(e as Error)?.message ?? e}`));
      this.queues.set(id, next);
      void next.finally(() => {
        if (this.queues.get(id) === next) this.queues.delete(id);
      });
    }
  }

  /** Waits for the queued checks (tests). */
  async settle(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()]);
  }

  /** Decides for one process and, when a signal is due, requests it once. */
  async consider(sessionId: string): Promise<TerminateOutcome | null> {
    const db = this.db;
    const where = { sessionId, type: "dead_loop" };
    const [session, sum, latest, prior] = await Promise.all([
      db.session.findUnique({ where: { id: sessionId }, select: { host: true, pid: true, agentName: true } }),
      db.interruption.aggregate({ where, _sum: { occurrences: true } }),
      db.interruption.findFirst({ where, orderBy: [{ lastSeenNs: "desc" }, { id: "asc" }], select: { id: true } }),
      db.terminateRequest.findMany({ where: { sessionId }, select: { signal: true, detections: true } }),
    ]);
    const detections = sum._sum.occurrences ?? 0;
    const signal = nextSignal(detections, this.killAfterCount, prior);
    if (!session || !latest || !signal) return null;

    const { host, pid } = session;
    const forwarder = host ? await db.forwarder.findUnique({ where: { host } }) : null;
    const unable =
      pid === null ? "no pid is known for this process"
      : host === null ? "no host is known for this process"
      : forwarder === null ? `no forwarder is registered for host ${host}`
      : null;
    const id = crypto.randomUUID();
    const createdAtNs = nowNs();
    try {
      await db.terminateRequest.create({
        data: {
          id, sessionId, host, pid, signal, interruptionId: latest.id, detections, createdAtNs,
          status: unable ? "failed" : "pending", result: unable, forwarderUrl: forwarder?.url ?? null, completedAtNs: unable ? createdAtNs : null,
        },
      });
    } catch (e) {
      if ((e as { code?: string })?.code === "P2002") return null; // requested already (another ingest or server)
      throw e;
    }

    let outcome: TerminateOutcome = { id, signal, status: "failed", result: unable ?? "" };
    if (!unable) {
      const payload: TerminatePayload = {
        request_id: id, session_id: sessionId, pid: pid!, host, agent_name: session.agentName, signal,
        interruption_id: latest.id, detections, issued_at_ms: Date.now(),
      };
      const sent = await sendOnce(
        this.fetchImpl,
        { url: `${forwarder!.url}${TERMINATE_PATH}`, kind: "generic", secret: forwarder!.secret },
        { id, event: TERMINATE_EVENT, payload: JSON.stringify(payload) },
        this.timeoutMs,
      );
      outcome = sent.ok ? { id, signal, status: "sent", result: answerOf(sent.response) } : { id, signal, status: "failed", result: failureOf(sent.statusCode, sent.error) };
      await db.terminateRequest.update({ where: { id }, data: { status: outcome.status, result: outcome.result, completedAtNs: nowNs() } });
    }
    const target = `pid ${pid ?? "?"}${host ? ` on ${host}` : ""}`;
    await db.interruptionActivity.create({
      data: {
        interruptionId: latest.id,
        actor: DEADLOOP_ACTOR,
        action: "terminate",
        before: null,
        after: JSON.stringify({ signal, pid, host, detections, status: outcome.status, result: outcome.result }),
        note: `${signal} for ${target} after ${detections} dead-loop detections: ${outcome.status === "sent" ? outcome.result : `not sent: ${outcome.result}`}`,
        atNs: nowNs(),
      },
    });
    if (outcome.status === "failed") this.log(`${signal} for ${target} (session ${sessionId}) failed: ${outcome.result}`);
    return outcome;
  }
}

const holder = globalThis as unknown as { sightdeskDeadLoopAction?: DeadLoopAction };

/** Turns the action on for this server process (startup, when `deadloop.enabled`). */
export function startDeadLoopAction(db: Db, killAfterCount: number): DeadLoopAction {
  if (!holder.sightdeskDeadLoopAction) {
    const action = new DeadLoopAction({ db, killAfterCount });
    onDeadLoopDetections((ids) => action.notify(ids));
    holder.sightdeskDeadLoopAction = action;
  }
  return holder.sightdeskDeadLoopAction;
}
