// Delivery of recorded exchanges to the server (SPEC §2.6): batched (one POST per second at
// most, or sooner when a batch is full) to `POST /api/ingest/http`, never in the agent's way.
// When the server cannot be reached, batches go to a spool directory, one file per batch, named
// in order; they are sent oldest first once it answers, and new batches queue behind them so
// the order holds. The spool survives a restart (its directory is read at start, then indexed
// in memory: spoolIndex.ts) and is bounded: past
// `maxBytes` the oldest files are dropped, with a count logged. Re-sending is harmless: every
// exchange keeps the call_id it was given at capture.
import fs from "node:fs";
import path from "node:path";
import type { WireExchange } from "./exchange";
import { isSuccessStatus } from "../domain/calls";
import { postExchanges } from "./ingestPost";
import { SpoolIndex } from "./spoolIndex";

export type SenderOptions = {
  url: string;
  token: string;
  spoolDir: string;
  spoolMaxBytes: number;
  intervalMs?: number;
  /** most exchanges per POST */
  batchSize?: number;
  /** most bytes of JSON per POST (the server's body limit is 10 MiB) */
  batchBytes?: number;
  /**
   * most bytes of JSON held in memory while a POST is under way; what piles up beyond goes to
   * the spool. Large enough for a healthy server's round trip under heavy streaming (50 MB/s of
   * recorded streams fill 8 MiB in 150 ms), small enough that a hung server cannot grow memory.
   */
  memoryBytes?: number;
  log?: (line: string) => void;
};

export type SenderStats = { sent: number; spooled: number; dropped: number; pending: number; spoolFiles: number };

const SUFFIX = ".jsonl";

/** What became of a batch the server answered. */
type Delivered = { sent: number; dropped: number };

export class ExchangeSender {
  /** added, not serialized yet */
  private fresh: WireExchange[] = [];
  private queue: string[] = [];
  private queueBytes = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private busy: Promise<void> | null = null;
  private seq = 0;
  private readonly stats = { sent: 0, spooled: 0, dropped: 0 };
  private serverDown = false;
  /** HTTP refusals in a row (401, 5xx…): the timer waits longer after each, up to a minute */
  private refusals = 0;
  private retryAt = 0;
  /** the refusal last logged, and when: the same one is logged again only every few minutes */
  private lastRefusal = { text: "", atMs: 0 };
  private readonly o: Required<Omit<SenderOptions, "log">> & Pick<SenderOptions, "log">;
  private readonly ingestUrl: URL;
  private readonly spooled: SpoolIndex;

  constructor(options: SenderOptions) {
    this.o = { intervalMs: 1000, batchSize: 1000, batchBytes: 2 * 1024 * 1024, memoryBytes: 32 * 1024 * 1024, ...options };
    this.ingestUrl = new URL("api/ingest/http", this.o.url.endsWith("/") ? this.o.url : `${this.o.url}/`); // under any path prefix of the server URL
    fs.mkdirSync(this.o.spoolDir, { recursive: true, mode: 0o700 });
    this.spooled = new SpoolIndex(this.o.spoolDir, SUFFIX);
  }

  start(): void {
    this.timer ??= setInterval(() => {
      if (Date.now() >= this.retryAt) void this.flush();
    }, this.o.intervalMs);
    this.timer.unref?.();
    void this.flush();
  }

  /**
   * Queues one exchange. Cheap: it is serialized later, with the others of the same turn of the
   * event loop, so that no agent's answer waits behind the JSON of a finished exchange.
   */
  add(x: WireExchange): void {
    this.fresh.push(x);
    if (this.fresh.length === 1) setImmediate(() => this.queueFresh());
  }

  /** Serializes what was added since the last time, then sends (or spools) what is due. */
  private queueFresh(): void {
    this.serializeFresh();
    // a slow server must not grow memory: while a send hangs, what piles up goes to the spool
    // (named by time, so it still sorts after the batch in flight should that one fail)
    if (this.busy && this.queueBytes >= this.o.memoryBytes) this.spool(this.takeAll());
    else if (this.queue.length >= this.o.batchSize || this.queueBytes >= this.o.batchBytes) void this.flush();
  }

  /** Moves what was added to the queue as JSON lines (and nothing else: a run calls it too). */
  private serializeFresh(): void {
    if (!this.fresh.length) return;
    const xs = this.fresh;
    this.fresh = [];
    for (const x of xs) {
      const line = JSON.stringify(x);
      this.queue.push(line);
      this.queueBytes += line.length;
    }
  }

  snapshot(): SenderStats {
    return { ...this.stats, pending: this.queue.length + this.fresh.length, spoolFiles: this.spooled.count };
  }

  /** Sends (or spools) everything queued, spool first. Concurrent calls share one run. */
  flush(): Promise<void> {
    if (this.busy) return this.busy;
    this.busy = this.run().finally(() => (this.busy = null));
    return this.busy;
  }

  /** Stops the timer and tries once more; what cannot be sent stays in the spool. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    this.serializeFresh();
    if (this.queue.length) this.spool(this.takeAll());
  }

  private take(): string[] {
    this.serializeFresh();
    const out: string[] = [];
    let bytes = 0;
    while (this.queue.length && out.length < this.o.batchSize && (out.length === 0 || bytes + this.queue[0].length < this.o.batchBytes)) {
      const line = this.queue.shift()!;
      bytes += line.length;
      this.queueBytes -= line.length;
      out.push(line);
    }
    return out;
  }

  /** Writes `lines` to the spool as files of at most one batch each, named by `at` (ms) so that files sort in send order. */
  private spool(lines: string[], at = Date.now()): void {
    let start = 0;
    while (start < lines.length) {
      let end = start;
      let bytes = 0;
      while (end < lines.length && end - start < this.o.batchSize && (end === start || bytes + lines[end].length < this.o.batchBytes)) bytes += lines[end++].length;
      this.spoolFile(lines.slice(start, end), at);
      start = end;
    }
    this.bound();
  }

  private spoolFile(lines: string[], at: number): void {
    if (!lines.length) return;
    const name = `${String(at).padStart(15, "0")}-${String(this.seq++ % 1e6).padStart(6, "0")}-${process.pid}${SUFFIX}`;
    try {
      const tmp = path.join(this.o.spoolDir, `.${name}.tmp`);
      const text = lines.join("\n") + "\n";
      fs.writeFileSync(tmp, text, { mode: 0o600 });
      fs.renameSync(tmp, path.join(this.o.spoolDir, name));
      this.spooled.add({ name, size: Buffer.byteLength(text) });
      this.stats.spooled += lines.length;
    } catch (e) {
      this.stats.dropped += lines.length;
      this.o.log?.(`cannot write the spool (${(e as Error).message}): ${lines.length} exchanges dropped`);
    }
  }

  /** Drops the oldest spool files while the spool is over its size limit. */
  private bound(): void {
    let dropped = 0;
    while (this.spooled.count > 1 && this.spooled.bytes > this.o.spoolMaxBytes) {
      const { name } = this.spooled.oldest()!;
      const p = path.join(this.o.spoolDir, name);
      this.spooled.remove(name);
      try {
        dropped += fs.readFileSync(p, "utf8").split("\n").filter(Boolean).length;
        fs.rmSync(p, { force: true });
      } catch {
        /* gone already */
      }
    }
    if (dropped) {
      this.stats.dropped += dropped;
      this.o.log?.(`spool over ${Math.round(this.o.spoolMaxBytes / 1048576)} MB: dropped the ${dropped} oldest exchanges`);
    }
  }

  /**
   * "retry" (the server is unreachable or busy), else how many of `lines` it stored and refused.
   * A batch it refuses (400, 413) is split in halves until each refused exchange is alone, so one
   * bad exchange never costs the others (a half sent twice is stored once: ingest is idempotent).
   */
  private async post(lines: string[], budget = { posts: 4 * Math.ceil(Math.log2(lines.length + 1)) + 4 }): Promise<"retry" | Delivered> {
    if (budget.posts <= 0) {
      this.o.log?.(`${lines.length} exchanges of a batch the server refused were not tried again; dropped`);
      return { sent: 0, dropped: lines.length };
    }
    try {
      budget.posts -= 1;
      const { status, text } = await postExchanges(this.ingestUrl, this.o.token, lines);
      if (status !== 400 && status !== 413 && !isSuccessStatus(status)) return this.refused(status, text);
      this.refusals = 0;
      this.retryAt = 0;
      if (isSuccessStatus(status)) return { sent: lines.length, dropped: 0 };
      // 400 or 413: a few bad exchanges are found in a few requests; a server refusing everything is not asked 2N times
      if (lines.length === 1 || budget.posts < 2) {
        this.o.log?.(`the server refused ${lines.length === 1 ? "an exchange" : `${lines.length} exchanges`} (HTTP ${status}: ${text.slice(0, 300)}); dropped`);
        return { sent: 0, dropped: lines.length };
      }
      const half = Math.ceil(lines.length / 2);
      const first = await this.post(lines.slice(0, half), budget);
      if (first === "retry") return first;
      const second = await this.post(lines.slice(half), budget);
      return second === "retry" ? second : { sent: first.sent + second.sent, dropped: first.dropped + second.dropped };
    } catch (e) {
      if (!this.serverDown) this.o.log?.(`cannot reach ${this.o.url} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); spooling to ${this.o.spoolDir}`);
      return "retry";
    }
  }

  /**
   * A batch the server would not take now (a refused token, an error of its own): kept to send
   * again, after a wait that doubles with each refusal in a row (up to a minute), and said once —
   * not once a second for as long as it lasts.
   */
  private refused(status: number, text: string): "retry" {
    const what =
      status === 401 || status === 403
        ? `the server refuses the token (HTTP ${status}): give one with the ingest scope (sightdesk token create --scope ingest); exchanges wait in ${this.o.spoolDir}`
        : `the server answered HTTP ${status} (${text.slice(0, 200)}); spooling`;
    const now = Date.now();
    if (what !== this.lastRefusal.text || now - this.lastRefusal.atMs > 5 * 60_000) {
      this.o.log?.(what);
      this.lastRefusal = { text: what, atMs: now };
    }
    this.refusals++;
    this.retryAt = now + Math.min(60_000, this.o.intervalMs * 2 ** Math.min(this.refusals, 16));
    return "retry";
  }

  private async run(): Promise<void> {
    // the spool first, oldest first: order is kept
    for (let file = this.spooled.oldest(); file; file = this.spooled.oldest()) {
      const p = path.join(this.o.spoolDir, file.name);
      let lines: string[];
      try {
        lines = fs.readFileSync(p, "utf8").split("\n").filter(Boolean);
      } catch {
        this.spooled.remove(file.name); // gone (removed by hand)
        continue;
      }
      const outcome = await this.post(lines);
      if (outcome === "retry") {
        this.serverDown = true;
        this.spool(this.takeAll()); // behind the spool, in order
        return;
      }
      this.count(outcome);
      this.spooled.remove(file.name); // (dropped meanwhile to bound the spool: already gone)
      fs.rmSync(p, { force: true });
    }
    this.serializeFresh();
    while (this.queue.length) {
      const takenAt = Date.now();
      const lines = this.take();
      const outcome = await this.post(lines);
      if (outcome === "retry") {
        this.serverDown = true;
        this.spool(lines, takenAt);
        this.spool(this.takeAll());
        return;
      }
      if (this.serverDown) this.o.log?.(`${this.o.url} answers again; delivering`);
      this.serverDown = false;
      this.count(outcome);
    }
  }

  private count(d: Delivered): void {
    this.stats.sent += d.sent;
    this.stats.dropped += d.dropped;
  }

  private takeAll(): string[] {
    this.serializeFresh();
    const all = this.queue;
    this.queue = [];
    this.queueBytes = 0;
    return all;
  }
}
