// Runs the sweep (./sweep.ts) every check_interval_secs inside the server process. The timer is
// unref'd (it never keeps the process alive) and a tick never overlaps the previous one.
import type { SightDeskConfig } from "../config/load";
import type { Db } from "../db/client";
import { nowNs } from "../domain/time";
import { boundWal } from "./storage";
import { runSweep, type SweepResult } from "./sweep";

export type SweeperOptions = {
  db: Db;
  config: SightDeskConfig;
  /** the clock, integer ns (injectable for tests) */
  now?: () => bigint;
  log?: (message: string) => void;
};

export class Sweeper {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<SweepResult | null> | null = null;
  private readonly now: () => bigint;
  private readonly log: (message: string) => void;

  constructor(private readonly o: SweeperOptions) {
    this.now = o.now ?? nowNs;
    this.log = o.log ?? ((m) => console.error(`[sweeps] ${m}`));
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.o.config.checkIntervalSecs * 1000);
    this.timer.unref?.();
    // a first sweep soon after start, not a whole interval later
    setTimeout(() => void this.tick(), Math.min(5_000, this.o.config.checkIntervalSecs * 1000)).unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One sweep; returns null without running when the previous one is still going. */
  tick(): Promise<SweepResult | null> {
    if (this.running) return Promise.resolve(null);
    this.running = runSweep(this.o.db, this.o.config, this.now())
      .then((r) => {
        const deleted = Object.values(r.retention).reduce((a, b) => a + b, 0);
        if (deleted) this.log(`retention removed ${JSON.stringify(r.retention)}`);
        if (r.sizeCap.vacuumed) this.log(`size cap: ${r.sizeCap.bytesBefore} → ${r.sizeCap.bytesAfter} bytes`);
        if (r.unsettledTurns) this.log(`flagged ${r.unsettledTurns} unsettled turn(s)`);
        return r;
      })
      .catch((e: Error) => {
        this.log(`sweep failed: ${e.message}`);
        return null;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
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
