// The alert worker (SPEC §7, issue 15): runs inside every server process, apart from ingest. Each tick it
//  1. scans interruptions created since the high-water mark (kept in the Setting table) and
//     queues one AlertDelivery per matching enabled webhook with an "each interruption" rule —
//     deduplicated per webhook and interruption (a unique key) and per fingerprint within the
//     webhook's repeat interval; evaluates the rate rules; and resolves what PagerDuty webhooks
//     paged about once it is resolved (lib/alerts/ruleState.ts).
//     One process at a time scans: the holder of the `alerts.scan` lease, renewed every tick;
//     when it dies the lease expires and another process carries on from the stored mark;
//  2. starts due deliveries without waiting for them (a small global and per-webhook limit, a
//     timeout per attempt), so a hanging receiver delays neither ingest nor other webhooks.
//     Every process sends; each delivery is claimed first (lib/coordination/claims.ts), so one
//     process sends it, and a delivery whose process died mid-send is sent again once the
//     claim expires — with the same X-SightDesk-Delivery id, for receivers that deduplicate.
// Failed attempts are retried with exponential backoff (not those refused for good: a PagerDuty
// 400, an SMTP 5xx). Clock, fetch, mail and tick are injectable; the default fetch goes only
// where the outbound policy allows (lib/config/outbound.ts), mail through the configured SMTP server.
import { interruptionRecord } from "../wire/records";
import type { Db } from "../db/client";
import type { AlertDelivery, Interruption, Webhook } from "../db/generated/client";
import { nowNs, NS_PER_MS } from "../domain/time";
import { backoffMs, genericPayload, matchesRule, publicBaseUrl, severitiesAtOrAbove, type AlertEvent } from "./rules";
import { outboundFetch } from "../config/outbound";
import { claimPending, heldBy, releaseClaim, unclaimed } from "../coordination/claims";
import { processHolder } from "../coordination/holder";
import { acquireLease, releaseLease, renewWhileWorking } from "../coordination/lease";
import { alertable } from "./candidates";
import { smtpMailer, type MailLike } from "./mailer";
import { deferBehindEarlier, deliveryRow, isDuplicate, sentInOrder, type QueuedAlert } from "./queue";
import { ruled, type RuledHook } from "./ruled";
import { evaluateRateRules, queuePagedTrigger, rateMemory, resolvePagedFingerprints } from "./ruleState";
import { DEFAULT_TIMEOUT_MS, sendAlert, type Channels, type FetchLike } from "./send";

export const MARK_KEY = "alerts.high_water_ns";
const NS_PER_SEC = 1_000_000_000n;
/** Rows committed a little after rows with a later createdAtNs are still found (the mark is re-read this far back). */
const LOOKBACK_NS = 10n * NS_PER_SEC;
const PAGE = 500;
const MAX_PAGES = 20;
const RETENTION_NS = 30n * 86_400n * NS_PER_SEC;
const PRUNE_EVERY_NS = 3600n * NS_PER_SEC;
export const SCAN_LEASE = "alerts.scan";
/** How long the scanning process keeps the scan without renewing it (it renews every tick and page). */
const SCAN_LEASE_MS = 5_000;
/** A claim outlives the attempt's timeout by this much (time to record the outcome). */
const CLAIM_MARGIN_MS = 5_000;

export type AlertWorkerOptions = {
  db: Db;
  /** the clock, integer ns */
  now?: () => bigint;
  fetch?: FetchLike;
  /** how email alerts are sent; default: the configured SMTP server (null: email is off) */
  mail?: MailLike | null;
  timeoutMs?: number;
  /** deliveries in flight at once, and per webhook */
  concurrency?: number;
  perWebhook?: number;
  baseUrl?: string;
  log?: (message: string) => void;
  /** this process's name on leases and claims (tests give two workers two names) */
  holder?: string;
  /** interruptions read per query of a scan (20 queries at most per tick) */
  scanPage?: number;
};

export class AlertWorker {
  private readonly db: Db;
  private readonly now: () => bigint;
  private readonly channels: Channels;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly perWebhook: number;
  private readonly log: (message: string) => void;
  private readonly holder: string;
  private ticking = false;
  private stopped = false;
  private current: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private mark: bigint | null = null;
  /**
   * Where the last scan stopped when it read all the rows one tick may (a burst): the next goes
   * on from there. Re-reading from the mark again would find the same rows, all decided, and
   * never reach the ones after them when more than a tick's worth share a stamp (one batch's do).
   */
  private resume: { at: bigint; id: string } | null = null;
  private readonly scanPage: number;
  private lastPruneNs = 0n;
  /** pairs already decided (queued or suppressed) within the lookback: `${webhookId}|${interruptionId}` → createdAtNs */
  private readonly decided = new Map<string, bigint>();
  /** when this process last counted each rate rule (it skips those that cannot have changed) */
  private readonly rates = rateMemory();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly inflightByHook = new Map<string, number>();

  constructor(o: AlertWorkerOptions) {
    this.db = o.db;
    this.now = o.now ?? nowNs;
    this.channels = { fetch: o.fetch ?? outboundFetch(), mail: o.mail === undefined ? smtpMailer() : o.mail, baseUrl: o.baseUrl ?? publicBaseUrl() };
    this.timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.concurrency = o.concurrency ?? 8;
    this.perWebhook = o.perWebhook ?? 2;
    this.log = o.log ?? ((m) => console.error(`[alerts] ${m}`));
    this.holder = o.holder ?? processHolder();
    this.scanPage = o.scanPage ?? PAGE;
  }

  start(intervalMs = 1000): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Stops ticking and gives the scan lease up (after the tick under way, if any): another process
   * scans at its next tick instead of once the lease expires — a rolling restart's SIGTERM. Then
   * waits for the deliveries in flight (each ends within its timeout) to be recorded: one whose
   * process exited mid-send would be sent again by another once its claim expires.
   */
  async shutdown(): Promise<void> {
    this.stop();
    this.stopped = true;
    await this.current;
    await releaseLease(this.db, SCAN_LEASE, this.holder).catch((e: Error) => this.log(`scan lease not released: ${e.message}`));
    await this.settle();
  }

  /** One scan (by the lease holder only) and dispatch; a tick that finds the previous one still running does nothing. */
  tick(): Promise<void> {
    if (this.ticking || this.stopped) return Promise.resolve();
    this.ticking = true;
    return (this.current = this.tickOnce());
  }

  private async tickOnce(): Promise<void> {
    try {
      if (await this.holdScanLease()) {
        // renewed as it goes: a scan longer than the lease (a backlog, many rules) kept it only
        // between pages, and another process took it over mid-scan and started again from its mark
        const lease = { db: this.db, name: SCAN_LEASE, holder: this.holder, ttlMs: SCAN_LEASE_MS, now: this.now, log: this.log };
        const stopRenewing = renewWhileWorking(lease, () => this.log("scan lease lost mid-scan (another process took it over)"));
        try {
          await this.scan();
          await this.prune();
        } finally {
          await stopRenewing();
        }
      }
      await this.dispatch();
    } catch (e) {
      this.log(`tick failed: ${(e as Error)?.message ?? e}`);
    } finally {
      this.ticking = false;
    }
  }

  /** Waits for the deliveries in flight. */
  async settle(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight.values()]);
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  // ── 1. queue ────────────────────────────────────────────────────────────────────────────

  /**
   * Takes or renews the scan lease; true while this process holds it. Taking it over means
   * another process scanned meanwhile: the mark is read again and the memory of decisions dropped.
   */
  private async holdScanLease(): Promise<boolean> {
    const grant = await acquireLease(this.db, SCAN_LEASE, this.holder, this.now(), SCAN_LEASE_MS);
    if (grant === "taken") {
      this.mark = null;
      this.resume = null;
      this.decided.clear();
      this.rates.evaluatedAt.clear();
    }
    return grant !== null;
  }

  private async readMark(): Promise<bigint> {
    if (this.mark === null) {
      const row = await this.db.setting.findUnique({ where: { key: MARK_KEY } });
      this.mark = row && /^\d+$/.test(row.value) ? BigInt(row.value) : 0n;
    }
    return this.mark;
  }

  private async writeMark(mark: bigint): Promise<void> {
    this.mark = mark;
    await this.db.setting.upsert({ where: { key: MARK_KEY }, create: { key: MARK_KEY, value: String(mark) }, update: { value: String(mark) } });
  }

  /** Queues what the enabled webhooks' rules call for now; the number of alerts queued. */
  async scan(): Promise<number> {
    const hooks = (await this.db.webhook.findMany({ where: { enabled: true } })).map(ruled);
    const each = hooks.filter((w) => w.ruleKind === "each");
    if (!each.length) await this.passOver(); // nothing wants each new one: none is owed later either
    if (!hooks.length) return 0;
    const now = this.now();
    let queued = await this.scanNew(each);
    queued += await evaluateRateRules(this.db, hooks, now, this.channels.baseUrl, this.rates);
    // stamped after the triggers this scan queued (each stamped as it was queued)
    queued += await resolvePagedFingerprints(this.db, each.filter((w) => w.kind === "pagerduty"), this.now(), this.channels.baseUrl);
    return queued;
  }

  /**
   * Moves the mark on while no enabled webhook wants each new interruption, so that one enabled
   * (or switched to "each") later starts from then: the interruptions of the time none wanted
   * them are not sent as a backlog (a disabled webhook's pending deliveries are dropped too).
   * Written once per lookback at most.
   */
  private async passOver(): Promise<void> {
    const now = this.now();
    if (now - (await this.readMark()) > LOOKBACK_NS) {
      this.resume = null; // a burst's place too: what it had left is owed to no one now
      await this.writeMark(now);
    }
  }

  /** Each new interruption, for the webhooks that want each one. */
  private async scanNew(hooks: RuledHook[]): Promise<number> {
    if (!hooks.length) return 0;
    const mark = await this.readMark();
    const oldestHook = hooks.reduce((m, w) => (w.createdAtNs < m ? w.createdAtNs : m), hooks[0].createdAtNs);
    let lo = mark - LOOKBACK_NS;
    if (lo < oldestHook) lo = oldestHook - 1n;
    for (const [k, at] of this.decided) if (at <= lo) this.decided.delete(k);
    const severities = [...new Set(hooks.flatMap((w) => severitiesAtOrAbove(w.filter.minSeverity)))];

    let queued = 0;
    let high = mark;
    let cursor = this.resume;
    this.resume = null;
    for (let page = 0; ; page++) {
      const rows: Interruption[] = await this.db.interruption.findMany({
        where: alertable({
          severity: { in: severities },
          ...(cursor ? { OR: [{ createdAtNs: { gt: cursor.at } }, { createdAtNs: cursor.at, id: { gt: cursor.id } }] } : { createdAtNs: { gt: lo } }),
        }),
        orderBy: [{ createdAtNs: "asc" }, { id: "asc" }],
        take: this.scanPage,
      });
      if (!rows.length) break;
      queued += await this.queue(hooks, rows);
      const last = rows[rows.length - 1];
      cursor = { at: last.createdAtNs, id: last.id };
      if (last.createdAtNs > high) high = last.createdAtNs;
      if (rows.length < this.scanPage) break;
      if (page + 1 === MAX_PAGES) {
        this.resume = cursor; // a burst: the next tick goes on from here
        break;
      }
      if (!(await this.holdScanLease())) break; // a long backlog: keep the lease, or stop if another process took over
    }
    // Rows are dated by the clock of the process that ingested them: one dated ahead of this
    // clock (another process's runs fast) must not carry the mark past rows still to come
    // from the others. Such a row is read again each tick until this clock passes it (queued once).
    const now = this.now();
    if (high > now) high = now > mark ? now : mark;
    if (high !== mark) await this.writeMark(high);
    return queued;
  }

  private async queue(hooks: RuledHook[], rows: Interruption[]): Promise<number> {
    const pairs: { w: RuledHook; i: Interruption; key: string }[] = [];
    for (const i of rows) {
      for (const w of hooks) {
        const key = `${w.id}|${i.id}`;
        if (this.decided.has(key) || i.createdAtNs < w.createdAtNs || !matchesRule(w.filter, i)) continue;
        pairs.push({ w, i, key });
      }
    }
    if (!pairs.length) return 0;
    const existing = await this.db.alertDelivery.findMany({
      where: { webhookId: { in: [...new Set(pairs.map((p) => p.w.id))] }, dedupeKey: { in: [...new Set(pairs.map((p) => p.i.id))] } },
      select: { webhookId: true, dedupeKey: true },
    });
    const seen = new Set(existing.map((d) => `${d.webhookId}|${d.dedupeKey}`));
    const regressed = new Map<string, boolean>();
    let queued = 0;
    for (const { w, i, key } of pairs) {
      if (seen.has(key)) {
        this.decided.set(key, i.createdAtNs);
        continue;
      }
      if (!regressed.has(i.id)) regressed.set(i.id, await this.isRegressed(i));
      const isRegression = regressed.get(i.id)!;
      // a regression always alerts; otherwise one alert per fingerprint per repeat interval
      if (!isRegression && w.repeatIntervalSecs > 0) {
        const interval = BigInt(w.repeatIntervalSecs) * NS_PER_SEC;
        const recent = await this.db.alertDelivery.findFirst({
          where: { webhookId: w.id, fingerprint: i.fingerprint, sourceAtNs: { gt: i.createdAtNs - interval, lt: i.createdAtNs + interval }, NOT: { dedupeKey: i.id } },
          select: { id: true },
        });
        if (recent) {
          this.decided.set(key, i.createdAtNs);
          continue;
        }
      }
      const event: AlertEvent = isRegression ? "interruption.regressed" : "interruption.created";
      const alert: QueuedAlert & { fingerprint: string } = {
        webhookId: w.id,
        event,
        dedupeKey: i.id,
        payload: genericPayload(event, interruptionRecord(i), this.channels.baseUrl),
        now: this.now(),
        interruptionId: i.id,
        fingerprint: i.fingerprint,
        sourceAtNs: i.createdAtNs,
      };
      try {
        // PagerDuty keeps the fingerprint's alert open until it is resolved here
        if (w.kind === "pagerduty") await queuePagedTrigger(this.db, alert);
        else await this.db.alertDelivery.create({ data: deliveryRow(alert) });
        queued++;
      } catch (e) {
        if (!isDuplicate(e)) throw e; // already queued: fine
      }
      this.decided.set(key, i.createdAtNs);
    }
    return queued;
  }

  /** A fingerprint that was resolved before this interruption occurred has come back. */
  private async isRegressed(i: Interruption): Promise<boolean> {
    const earlier = await this.db.interruption.findFirst({
      where: { fingerprint: i.fingerprint, status: "resolved", resolvedAtNs: { lt: i.occurredAtNs }, NOT: { id: i.id } },
      select: { id: true },
    });
    return earlier !== null;
  }

  // ── 2. deliver ──────────────────────────────────────────────────────────────────────────

  async dispatch(): Promise<number> {
    const free = this.concurrency - this.inflight.size;
    // shutting down: a send started now could be cut off by the exit, and sent again by another process
    if (free <= 0 || this.stopped) return 0;
    const now = this.now();
    const unclaimedAt = { OR: [{ claimExpiresAtNs: null }, { claimExpiresAtNs: { lte: now } }] };
    // not those of webhooks this process sends to as much as it may: a slow receiver's backlog
    // would fill the list, and other webhooks' alerts wait behind it
    const busy = [...this.inflightByHook].filter(([, n]) => n >= this.perWebhook).map(([id]) => id);
    const due = await this.db.alertDelivery.findMany({
      where: { status: "pending", nextAttemptAtNs: { lte: now }, ...unclaimedAt, ...(busy.length ? { webhookId: { notIn: busy } } : {}) },
      orderBy: [{ nextAttemptAtNs: "asc" }, { id: "asc" }],
      take: Math.max(50, free * 4),
    });
    if (!due.length) return 0;
    const hooks = new Map((await this.db.webhook.findMany({ where: { id: { in: [...new Set(due.map((d) => d.webhookId))] } } })).map((w) => [w.id, w]));
    let started = 0;
    for (const d of due) {
      if (this.inflight.size >= this.concurrency || this.stopped) break;
      const w = hooks.get(d.webhookId);
      if (!w || !w.enabled) {
        await this.db.alertDelivery.updateMany({
          where: { id: d.id, status: "pending", ...unclaimedAt },
          data: { status: "failed", lastError: w ? "webhook disabled before delivery" : "webhook deleted" },
        });
        continue;
      }
      // an attempt of this process that outlived its claim (e.g. a slow DNS answer) is still its own
      if (this.inflight.has(d.id) || (this.inflightByHook.get(w.id) ?? 0) >= this.perWebhook) continue;
      const claimed = await this.claim(d, w, this.now()); // the claim runs from now, not from when the list was read
      if (!claimed) continue;
      this.inflightByHook.set(w.id, (this.inflightByHook.get(w.id) ?? 0) + 1);
      const p = this.attempt(claimed, w).finally(() => {
        this.inflight.delete(d.id);
        const n = (this.inflightByHook.get(w.id) ?? 1) - 1;
        if (n <= 0) this.inflightByHook.delete(w.id);
        else this.inflightByHook.set(w.id, n);
      });
      this.inflight.set(d.id, p);
      started++;
    }
    return started;
  }

  /**
   * Claims a delivery for this process, for the attempt's timeout and a margin; the row as it is
   * now (another process may have attempted it since it was listed), or null when it is not ours
   * to send, or not yet (PagerDuty: one queued before it, for the same alert, is still pending).
   */
  private async claim(d: AlertDelivery, w: Webhook, now: bigint): Promise<AlertDelivery | null> {
    const id = d.id;
    if (!(await claimPending(this.db, "AlertDelivery", id, this.holder, now, this.timeoutMs + CLAIM_MARGIN_MS, sentInOrder(d, w.kind)))) {
      await deferBehindEarlier(this.db, d, w.kind, now);
      return null;
    }
    const row = await this.db.alertDelivery.findUnique({ where: { id } });
    if (row && row.claimedBy === this.holder && row.status === "pending" && row.nextAttemptAtNs <= now) return row;
    await releaseClaim(this.db, "AlertDelivery", id, this.holder);
    return null;
  }

  private async attempt(d: AlertDelivery, w: Webhook): Promise<void> {
    try {
      const result = await sendAlert(this.channels, w, { id: d.id, event: d.event, payload: d.payload }, this.timeoutMs);
      const attempts = d.attempts + 1;
      const now = this.now();
      const delay = result.ok || result.retryable === false ? null : backoffMs(attempts);
      const outcome = result.ok
        ? { status: "delivered", attempts, lastStatusCode: result.statusCode, lastError: null, deliveredAtNs: now }
        : {
            status: delay === null ? "failed" : "pending",
            attempts,
            lastStatusCode: result.statusCode,
            lastError: result.error,
            nextAttemptAtNs: delay === null ? d.nextAttemptAtNs : now + BigInt(delay) * NS_PER_MS,
          };
      // only while the claim is still ours: past it, another process has taken the delivery over
      const { count } = await this.db.alertDelivery.updateMany({ where: { id: d.id, ...heldBy(this.holder) }, data: { ...outcome, ...unclaimed } });
      if (!count) this.log(`delivery ${d.id}: another process took it over before this attempt's outcome was recorded`);
    } catch (e) {
      this.log(`delivery ${d.id} could not be recorded: ${(e as Error)?.message ?? e}`);
    }
  }

  // ── 3. housekeeping ─────────────────────────────────────────────────────────────────────

  private async prune(): Promise<void> {
    const now = this.now();
    if (now - this.lastPruneNs < PRUNE_EVERY_NS) return;
    this.lastPruneNs = now;
    await this.db.alertDelivery.deleteMany({ where: { createdAtNs: { lt: now - RETENTION_NS }, status: { not: "pending" } } });
    // fingerprints paged about and resolved long ago (one row each would pile up)
    await this.db.alertRuleState.deleteMany({ where: { state: "ok", key: { startsWith: "fp:" }, resolvedAtNs: { lt: now - RETENTION_NS } } });
  }
}

const globalForAlerts = globalThis as unknown as { sightdeskAlertWorker?: AlertWorker };

/** Starts the process-wide worker once (server startup); every process sharing the database runs one. */
export function startAlertWorker(db: Db): AlertWorker {
  if (!globalForAlerts.sightdeskAlertWorker) {
    globalForAlerts.sightdeskAlertWorker = new AlertWorker({ db });
    globalForAlerts.sightdeskAlertWorker.start(1000);
  }
  return globalForAlerts.sightdeskAlertWorker;
}
