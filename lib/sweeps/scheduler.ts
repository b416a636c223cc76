// Runs the sweep (./sweep.ts) once per check_interval_secs — once in total, however many server
// processes share the database. Every process looks a few times per interval whether a sweep is
// due (the sweep log, ./runs.ts); the one that takes the `sweep` lease runs it, renewing the
// lease while it works, and logs the run. A process that dies mid-sweep stops renewing: its
// lease expires within an interval and the next due sweep is run by another process. Timers are
// unref'd (they never keep the process alive) and a tick never overlaps the previous one.
import type { SightDeskConfig } from "../config/load";
import { processHolder } from "../coordination/holder";
import { withLease } from "../coordination/lease";
import type { Db } from "../db/client";
import { nowNs } from "../domain/time";
import { beginSweepRun, finishSweepRun, sweepDue } from "./runs";
import { boundWal } from "./storage";
import { runSweep, type SweepResult } from "./sweep";

export const SWEEP_LEASE = "sweep";
const NS_PER_SEC = 1_000_000_000n;

export type SweeperOptions = {
  db: Db;
  config: SightDeskConfig;
  /** the clock, integer ns (injectable for tests) */
  now?: () => bigint;
  log?: (message: string) => void;
  /** this process's name on the lease and in the sweep log (tests give two sweepers two names) */
  holder?: string;
};

/** How often a process looks whether a sweep is due: a quarter interval, between 0.25 and 5 s. */
export const pollMs = (intervalSecs: number) => Math.min(5_000, Math.max(250, (intervalSecs * 1000) / 4));
/** The sweep lease's length: one interval (so a dead sweeper's work is taken over within it), at most 30 s. */
export const leaseMs = (intervalSecs: number) => Math.min(30_000, Math.max(1_000, intervalSecs * 1000));

export class Sweeper {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<SweepResult | null> | null = null;
  private readonly now: () => bigint;
  private readonly log: (message: string) => void;
  private readonly holder: string;

  constructor(private readonly o: SweeperOptions) {
    this.now = o.now ?? nowNs;
    this.log = o.log ?? ((m) => console.error(`[sweeps] ${m}`));
    this.holder = o.holder ?? processHolder();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), pollMs(this.o.config.checkIntervalSecs));
    this.timer.unref?.();
  }

  /** No sweep starts any more; resolves once a sweep under way has finished (its run recorded, its lease given up). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep when one is due and no other process is sweeping; else (or while the previous tick runs) null. */
  tick(): Promise<SweepResult | null> {
    if (this.running) return Promise.resolve(null);
    this.running = this.sweepIfDue()
      .catch((e: Error) => {
        this.log(`sweep failed: ${e.message}`);
        return null;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async sweepIfDue(): Promise<SweepResult | null> {
    const { db, config } = this.o;
    const interval = BigInt(config.checkIntervalSecs) * NS_PER_SEC;
    if (!(await sweepDue(db, this.now(), interval))) return null;
    const lease = { db, name: SWEEP_LEASE, holder: this.holder, ttlMs: leaseMs(config.checkIntervalSecs), now: this.now, log: this.log };
    return withLease(lease, async (_grant, lost) => {
      const now = this.now();
      const run = await beginSweepRun(db, this.holder, now, interval); // null: another process swept meanwhile
      if (!run) return null;
      try {
        const result = await runSweep(db, config, now, lost);
        this.report(result);
        await finishSweepRun(db, run, "done", JSON.stringify(result, (_, v) => (typeof v === "bigint" ? String(v) : v)), this.now());
        return result;
      } catch (e) {
        await finishSweepRun(db, run, "failed", (e as Error).message, this.now()).catch(() => undefined);
        throw e;
      }
    });
  }

  private report(r: SweepResult): void {
    const deleted = Object.values(r.retention).reduce((a, b) => a + b, 0);
    if (deleted) this.log(`retention removed ${JSON.stringify(r.retention)}`);
    if (r.sizeCap.vacuumed) this.log(`size cap: ${r.sizeCap.bytesBefore} → ${r.sizeCap.bytesAfter} bytes`);
    if (r.unsettledTurns) this.log(`flagged ${r.unsettledTurns} unsettled turn(s)`);
  }
}

const KEY = Symbol.for("sightdesk.sweeper");
type WithSweeper = { [KEY]?: Sweeper };

/** Starts the process-wide sweeper once (Next.js may run startup code more than once). */
export function startSweeps(db: Db, config: SightDeskConfig): Sweeper {
  const holder = globalThis as WithSweeper;
  if (!holder[KEY]) {
    holder[KEY] = new Sweeper({ db, config });
    holder[KEY].start();
    void boundWal(db, config.maxDbSizeMb).catch((e: Error) => console.error(`[sweeps] WAL size not bounded: ${e.message}`));
  }
  return holder[KEY];
}
