// The CLI proxy's delivery on its own thread: the forwarding thread hands the recorded exchanges
// over in bunches (one message per HANDOVER_MS, or per HANDOVER_MAX exchanges: waking the other
// thread for every exchange would cost more than serializing it) and goes back to forwarding; serializing, batching, the spool and the POSTs run on the sender thread
// (senderWorker.ts). Same behaviour as ExchangeSender, which it runs; when the thread cannot
// start (outside the source tree) or dies, an ExchangeSender on this thread takes over (the
// spool on disk carries over; exchanges still in the dead thread's memory are lost, and logged).
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { transferables, wireExchange, type RecordedExchange } from "./exchange";
import { ExchangeSender, type SenderOptions, type SenderStats } from "./sender";

export type ToSender = { type: "add"; exchanges: RecordedExchange[] } | { type: "start" } | { type: "stop" };
type FromSender = { type: "log"; line: string } | { type: "stopped"; stats: SenderStats };

const ENTRY = path.join(__dirname, "senderWorker.cjs");
/** Exchanges reach the sender thread within this many ms (it sends at most once a second anyway). */
const HANDOVER_MS = 20;
const HANDOVER_MAX = 256;

export class SenderThread {
  private worker: Worker | null = null;
  private inline: ExchangeSender | null = null;
  private batch: RecordedExchange[] = [];
  private stats: SenderStats = { sent: 0, spooled: 0, dropped: 0, pending: 0, spoolFiles: 0 };
  private stopped: ((s: SenderStats) => void) | null = null;
  private started = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: SenderOptions) {
    if (!fs.existsSync(ENTRY)) {
      this.inline = new ExchangeSender(o);
      return;
    }
    const { log: _log, ...data } = o;
    const worker = new Worker(ENTRY, { workerData: data });
    worker.on("message", (m: FromSender) => {
      if (m.type === "log") this.o.log?.(m.line);
      else {
        this.stats = m.stats;
        this.stopped?.(m.stats);
      }
    });
    worker.on("error", (e) => this.takeOver(`the sender thread failed (${e.message})`));
    worker.on("exit", (code) => {
      if (this.worker === worker && !this.stopped) this.takeOver(`the sender thread exited (code ${code})`);
    });
    this.worker = worker;
  }

  /** The dead thread's work goes on here (what it had spooled is on disk and is sent). */
  private takeOver(why: string): void {
    if (!this.worker) return;
    this.worker = null;
    this.o.log?.(`${why}; delivering from the main thread (exchanges it held in memory are lost)`);
    this.inline = new ExchangeSender(this.o);
    if (this.started) this.inline.start();
    this.stopped?.(this.inline.snapshot());
  }

  start(): void {
    this.started = true;
    if (this.inline) this.inline.start();
    else this.worker!.postMessage({ type: "start" } satisfies ToSender);
  }

  /** Queues one exchange; handed to the sender thread with the others of the next HANDOVER_MS. */
  add(x: RecordedExchange): void {
    if (this.inline) return this.inline.add(wireExchange(x));
    this.batch.push(x);
    if (this.batch.length === 1) this.timer = setTimeout(() => this.handOver(), HANDOVER_MS);
    else if (this.batch.length >= HANDOVER_MAX) this.handOver();
  }

  private handOver(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const exchanges = this.batch;
    this.batch = [];
    if (!exchanges.length) return;
    if (this.inline) for (const x of exchanges) this.inline.add(wireExchange(x));
    // the bodies' buffers move to the sender thread, not copied (nor kept on this thread's heap)
    else if (this.worker) this.worker.postMessage({ type: "add", exchanges } satisfies ToSender, exchanges.flatMap(transferables));
    else this.o.log?.(`${exchanges.length} exchange(s) recorded after the sender stopped are lost`); // the proxy is closed before it stops
  }

  /** Sends what it can, spools the rest, and ends the thread. */
  async stop(): Promise<void> {
    this.handOver();
    if (this.worker) {
      const worker = this.worker;
      await new Promise<SenderStats>((resolve) => {
        this.stopped = resolve;
        worker.postMessage({ type: "stop" } satisfies ToSender);
      });
      this.worker = null;
      await worker.terminate();
    }
    if (this.inline) {
      await this.inline.stop();
      this.stats = this.inline.snapshot();
    }
  }

  /** Counts as of the last stop (the thread's own counts are not polled while it runs). */
  snapshot(): SenderStats {
    return this.inline && !this.worker ? this.inline.snapshot() : this.stats;
  }
}
