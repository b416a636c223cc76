// Progress of long CLI work through rows (an import): rows done, rows per second and time left.
// On a terminal one line is rewritten in place; otherwise (a log, a pipe) a plain line now and
// then shows the work is alive without flooding the log.
export type ProgressMode = "terminal" | "lines" | "off";

export type ProgressOptions = {
  /** milliseconds between plain lines ("lines" mode) */
  lineEveryMs?: number;
  /** milliseconds between redraws on a terminal */
  redrawEveryMs?: number;
  now?: () => number;
};

const count = (n: number) => Math.round(n).toLocaleString("en-US");

/** "42 s", "3 min 05 s", "1 h 02 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/** One progress line: "interruption_events: 420,000 of 1,000,000 rows (42 %), 21,400 rows/s, 27 s left". */
export function progressLine(label: string, done: number, total: number, seconds: number): string {
  const rate = seconds > 0 ? done / seconds : 0;
  const of = total > 0 ? ` of ${count(total)} rows (${Math.floor((100 * Math.min(done, total)) / total)} %)` : " rows";
  const left = rate > 0 && total > done ? `, ${formatDuration((total - done) / rate)} left` : "";
  return `${label}: ${count(done)}${of}, ${count(rate)} rows/s${left}`;
}

export class RowProgress {
  private label: string | null = null;
  private startedAt = 0;
  private shownAt = 0;
  private last = "";
  private readonly now: () => number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly mode: ProgressMode,
    private readonly options: ProgressOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  /** `done` of `total` rows of `label` (a new label starts a new line and a new rate). */
  update(label: string, done: number, total: number): void {
    if (this.mode === "off") return;
    const now = this.now();
    if (label !== this.label) {
      this.endLine();
      this.label = label;
      this.startedAt = now;
      this.shownAt = now;
    }
    const text = progressLine(label, done, total, (now - this.startedAt) / 1000);
    if (this.mode === "terminal") {
      if (now - this.shownAt < (this.options.redrawEveryMs ?? 200) && done < total && this.last) return;
      this.write(`\r${text}\x1b[K`);
      this.last = text;
    } else if (now - this.shownAt >= (this.options.lineEveryMs ?? 10_000)) {
      this.write(`${text}\n`);
    } else return;
    this.shownAt = now;
  }

  /** Ends the terminal line (call before printing anything else, and at the end). */
  finish(): void {
    this.endLine();
    this.label = null;
  }

  private endLine(): void {
    if (this.mode === "terminal" && this.last) this.write("\n");
    this.last = "";
  }
}
