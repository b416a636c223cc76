// The dead-loop action (SPEC §7), server side. Off by default (`deadloop.enabled`); when on, the
// server subscribes at startup and, after each ingest commit that had dead-loop detections
// (never inside the transaction, never making ingest wait), looks at each process concerned:
//  - counts its detections (see protocol.ts for the exact definition) and the requests made;
//  - decides: nothing, SIGTERM or SIGKILL (`nextSignal`; no SIGKILL while the SIGTERM is being
//    sent: whoever records the SIGTERM's outcome looks at the process again);
//  - inserts a TerminateRequest row — unique per (session, signal), so under retries, concurrent
//    ingests or several server processes exactly one request per signal is ever made — and only
//    then POSTs the signed request to the forwarder registered for the process's host, with a
//    timeout; the outcome goes on the row and, as an activity entry, on the dead_loop interruption.
// Requests are made one at a time per process, in the order of the ingests.
// A pending row is claimed by the server process sending it (lib/coordination/claims.ts). When
// that process dies mid-send the claim expires, and any server process with the action on
// completes the request (`recover`, every few seconds): it sends it again with the same request
// id — a forwarder that received it the first time refuses the repeat (409), so the signal is
// still sent once — or, when it is too old for the forwarder's clock window, records it failed.
import crypto from "node:crypto";
import { sendOnce, type FetchLike } from "../alerts/send";
import type { Db } from "../db/client";
import { outboundFetch } from "../config/outbound";
import { claimPending, heldBy, unclaimed } from "../coordination/claims";
import { processHolder } from "../coordination/holder";
import { onDeadLoopDetections } from "../ingest/afterCommit";
import { nowNs, NS_PER_HOUR, NS_PER_MS } from "../domain/time";
import { MAX_SKEW_MS, nextSignal, TERMINATE_EVENT, TERMINATE_PATH, type TerminatePayload, type TerminateSignal } from "./protocol";

/** The actor of the activity entries. */
export const DEADLOOP_ACTOR = "sightdesk:deadloop";
const TIMEOUT_MS = 5000;
/** A claim outlives the request's timeout by this much (time to record the outcome). */
const CLAIM_MARGIN_MS = 5000;
/** How often each process looks for requests whose sender died mid-send. */
const RECOVER_EVERY_MS = 5000;
/** An abandoned request older than this is not sent again (the forwarder would refuse its age anyway). */
const RESEND_WITHIN_NS = BigInt(MAX_SKEW_MS / 2) * NS_PER_MS;
/**
 * Sessions whose dead loop was seen within this long are looked at again by the recovery, in
 * case a signal is owed that no request stands for: the process that stored the detection
 * stopped before it asked (its check runs after the commit), or the detection was stored by a
 * process without the action (an import). The decision is the same as after an ingest (nothing
 * is due twice: the request's insert is the guard).
 */
const OWED_WITHIN_NS = 10n * 60_000n * NS_PER_MS;

export type DeadLoopActionOptions = {
  db: Db;
  killAfterCount: number;
  fetch?: FetchLike;
  timeoutMs?: number;
  log?: (message: string) => void;
  /** this process's name on the requests it claims (tests give two actions two names) */
  holder?: string;
  /** the clock, integer ns (injectable for tests) */
  now?: () => bigint;
};

type Target = { id: string; sessionId: string; host: string | null; pid: number | null; signal: TerminateSignal; interruptionId: string; detections: number };

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
  private readonly holder: string;
  private readonly now: () => bigint;
  private readonly claimMs: number;
  /** per session, the tail of its queue of checks */
  private readonly queues = new Map<string, Promise<unknown>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private recovering: Promise<number> | null = null;

  constructor(o: DeadLoopActionOptions) {
    this.db = o.db;
    this.killAfterCount = o.killAfterCount;
    this.fetchImpl = o.fetch ?? outboundFetch();
    this.timeoutMs = o.timeoutMs ?? TIMEOUT_MS;
    this.log = o.log ?? ((m) => console.error(`[deadloop] ${m}`));
    this.holder = o.holder ?? processHolder();
    this.now = o.now ?? nowNs;
    this.claimMs = this.timeoutMs + CLAIM_MARGIN_MS;
  }

  /** Looks for abandoned requests every few seconds (unref'd timer). */
  start(everyMs = RECOVER_EVERY_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.recoverOnce(), everyMs);
    this.timer.unref?.();
  }

  /** One recovery, unless the previous one (its sends may take their timeouts) is still under way: then null. */
  recoverOnce(): Promise<number | null> {
    if (this.recovering) return Promise.resolve(null);
    this.recovering = this.recover()
      .catch((e: Error) => (this.log(`recovery failed: ${e.message}`), 0))
      .finally(() => (this.recovering = null));
    return this.recovering;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
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
      db.terminateRequest.findMany({ where: { sessionId }, select: { signal: true, detections: true, status: true } }),
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
    const createdAtNs = this.now();
    try {
      await db.terminateRequest.create({
        data: {
          id, sessionId, host, pid, signal, interruptionId: latest.id, detections, createdAtNs,
          status: unable ? "failed" : "pending", result: unable, forwarderUrl: forwarder?.url ?? null, completedAtNs: unable ? createdAtNs : null,
          ...(unable ? {} : { claimedBy: this.holder, claimExpiresAtNs: createdAtNs + BigInt(this.claimMs) * NS_PER_MS }),
        },
      });
    } catch (e) {
      if ((e as { code?: string })?.code !== "P2002") throw e;
      // requested already (another ingest or server) — at fewer detections, maybe: look again
      this.notify([sessionId]);
      return null;
    }
    const target: Target = { id, sessionId, host, pid, signal, interruptionId: latest.id, detections };
    if (unable) {
      const outcome: TerminateOutcome = { id, signal, status: "failed", result: unable };
      await this.note(target, outcome);
      return outcome;
    }
    const outcome = await this.send(target, session.agentName, forwarder!, false);
    return (await this.record(target, outcome, false)) ? outcome : null;
  }

  /**
   * Completes the pending requests whose sender stopped before recording the outcome (its claim
   * expired): each is claimed by this process, then sent again with its own id, or — when it is
   * too old for the forwarder's clock window — recorded as failed. Returns how many it completed.
   */
  async recover(): Promise<number> {
    const db = this.db;
    const now = this.now();
    this.notify(await this.recentLoops(now));
    const abandoned = await db.terminateRequest.findMany({
      where: { status: "pending", OR: [{ claimExpiresAtNs: null }, { claimExpiresAtNs: { lte: now } }] },
      orderBy: { createdAtNs: "asc" },
      take: 20,
    });
    let completed = 0;
    for (const r of abandoned) {
      // each claim, and the age it judges, from when it is taken: the sends before it may have taken their timeouts
      const at = this.now();
      if (!(await claimPending(db, "TerminateRequest", r.id, this.holder, at, this.claimMs))) continue;
      const target = { ...r, signal: r.signal as TerminateSignal };
      let outcome: TerminateOutcome;
      if (at - r.createdAtNs > RESEND_WITHIN_NS) {
        outcome = { id: r.id, signal: target.signal, status: "failed", result: "the server process sending it stopped, and it is too old to send again" };
      } else {
        const [session, forwarder] = await Promise.all([
          db.session.findUnique({ where: { id: r.sessionId }, select: { agentName: true } }),
          r.host === null ? null : db.forwarder.findUnique({ where: { host: r.host } }),
        ]);
        outcome = forwarder && r.pid !== null
          ? await this.send(target, session?.agentName ?? null, forwarder, true)
          : { id: r.id, signal: target.signal, status: "failed", result: `no forwarder is registered for host ${r.host}` };
      }
      if (await this.record(target, outcome, true)) completed++;
    }
    return completed;
  }

  /** Sessions with a dead loop seen lately (OWED_WITHIN_NS), through the (type, occurredAtNs) index: a loop opened within a day. */
  private async recentLoops(now: bigint): Promise<string[]> {
    const rows = await this.db.interruption.groupBy({
      by: ["sessionId"],
      where: { type: "dead_loop", sessionId: { not: null }, occurredAtNs: { gte: now - 24n * NS_PER_HOUR }, lastSeenNs: { gte: now - OWED_WITHIN_NS } },
    });
    return rows.map((r) => r.sessionId!);
  }

  private async send(t: Target, agentName: string | null, forwarder: { url: string; secret: string }, resent: boolean): Promise<TerminateOutcome> {
    const payload: TerminatePayload = {
      request_id: t.id, session_id: t.sessionId, pid: t.pid!, host: t.host, agent_name: agentName, signal: t.signal,
      interruption_id: t.interruptionId, detections: t.detections, issued_at_ms: Date.now(),
    };
    const sent = await sendOnce(
      this.fetchImpl,
      { url: `${forwarder.url}${TERMINATE_PATH}`, kind: "generic", secret: forwarder.secret },
      { id: t.id, event: TERMINATE_EVENT, payload: JSON.stringify(payload) },
      this.timeoutMs,
    );
    if (sent.ok) return { id: t.id, signal: t.signal, status: "sent", result: answerOf(sent.response) };
    // the forwarder refuses a request id it has seen: a resent request reached it the first time
    if (resent && sent.statusCode === 409) return { id: t.id, signal: t.signal, status: "sent", result: "already_handled" };
    return { id: t.id, signal: t.signal, status: "failed", result: failureOf(sent.statusCode, sent.error) };
  }

  /** Puts the outcome on the row while this process's claim holds (else another process took it over: false), then notes it. */
  private async record(t: Target, outcome: TerminateOutcome, resent: boolean): Promise<boolean> {
    const { count } = await this.db.terminateRequest.updateMany({
      where: { id: t.id, status: "pending", ...heldBy(this.holder) },
      data: { status: outcome.status, result: outcome.result, completedAtNs: this.now(), ...unclaimed },
    });
    if (!count) {
      this.log(`${t.signal} request ${t.id}: another server process took it over before its outcome was recorded`);
      return false;
    }
    await this.note(t, outcome, resent);
    // a detection seen meanwhile (by any server process) waited for this SIGTERM: SIGKILL may be due
    if (t.signal === "SIGTERM") this.notify([t.sessionId]);
    return true;
  }

  /** The request's entry in the dead_loop interruption's activity (and the log, when it failed). */
  private async note(t: Target, outcome: TerminateOutcome, resent = false): Promise<void> {
    const { signal, pid, host, detections } = t;
    const who = `pid ${pid ?? "?"}${host ? ` on ${host}` : ""}`;
    const after = resent ? " (completed by another server process: the one sending it stopped)" : "";
    await this.db.interruptionActivity.create({
      data: {
        interruptionId: t.interruptionId,
        actor: DEADLOOP_ACTOR,
        action: "terminate",
        before: null,
        after: JSON.stringify({ signal, pid, host, detections, status: outcome.status, result: outcome.result }),
        note: `${signal} for ${who} after ${detections} dead-loop detections: ${outcome.status === "sent" ? outcome.result : `not sent: ${outcome.result}`}${after}`,
        atNs: this.now(),
      },
    });
    if (outcome.status === "failed") this.log(`${signal} for ${who} (session ${t.sessionId}) failed: ${outcome.result}`);
  }
}

const holder = globalThis as unknown as { sightdeskDeadLoopAction?: DeadLoopAction };

/** Turns the action on for this server process (startup, when `deadloop.enabled`). */
export function startDeadLoopAction(db: Db, killAfterCount: number): DeadLoopAction {
  if (!holder.sightdeskDeadLoopAction) {
    const action = new DeadLoopAction({ db, killAfterCount });
    onDeadLoopDetections((ids) => action.notify(ids));
    action.start();
    holder.sightdeskDeadLoopAction = action;
  }
  return holder.sightdeskDeadLoopAction;
}
