// The CLI's progress display: one line rewritten in place on a terminal, a plain line now and
// then in a log, nothing when quiet; rows, rows per second and time left, on a fake clock.
import { describe, expect, it } from "vitest";
import { formatDuration, progressLine, RowProgress } from "@/lib/cli/progress";

function recorder(mode: "terminal" | "lines" | "off", options: { lineEveryMs?: number } = {}) {
  let now = 0;
  const written: string[] = [];
  const progress = new RowProgress((t) => written.push(t), mode, { ...options, now: () => now });
  return { progress, written, advance: (ms: number) => (now += ms) };
}

describe("progress", () => {
  it("says rows, rows per second and time left", () => {
    expect(progressLine("interruption_events", 420_000, 1_000_000, 20)).toBe("interruption_events: 420,000 of 1,000,000 rows (42 %), 21,000 rows/s, 28 s left");
    expect(progressLine("genai_events", 0, 30, 0)).toBe("genai_events: 0 of 30 rows (0 %), 0 rows/s");
    expect(progressLine("genai_events", 30, 30, 2)).toBe("genai_events: 30 of 30 rows (100 %), 15 rows/s");
    expect([formatDuration(42.4), formatDuration(185), formatDuration(3720)]).toEqual(["42 s", "3 min 05 s", "1 h 02 min"]);
  });

  it("rewrites one line on a terminal, at most every 200 ms, always the last state, then ends it", () => {
    const { progress, written, advance } = recorder("terminal");
    progress.update("interruption_events", 0, 30_000);
    advance(100);
    progress.update("interruption_events", 10_000, 30_000); // too soon: not drawn
    advance(150);
    progress.update("interruption_events", 20_000, 30_000);
    advance(50);
    progress.update("interruption_events", 30_000, 30_000); // the end is always drawn
    progress.finish();
    expect(written).toEqual([
      "\rinterruption_events: 0 of 30,000 rows (0 %), 0 rows/s\x1b[K",
      "\rinterruption_events: 20,000 of 30,000 rows (66 %), 80,000 rows/s, 0 s left\x1b[K",
      "\rinterruption_events: 30,000 of 30,000 rows (100 %), 100,000 rows/s\x1b[K",
      "\n",
    ]);
  });

  it("starts a new line (and a new rate) for the next table", () => {
    const { progress, written, advance } = recorder("terminal");
    progress.update("genai_events", 0, 10);
    advance(1000);
    progress.update("genai_events", 10, 10);
    progress.update("interruption_events", 0, 5);
    advance(1000);
    progress.update("interruption_events", 5, 5);
    progress.finish();
    expect(written.join("")).toBe(
      "\rgenai_events: 0 of 10 rows (0 %), 0 rows/s\x1b[K\rgenai_events: 10 of 10 rows (100 %), 10 rows/s\x1b[K\n" +
        "\rinterruption_events: 0 of 5 rows (0 %), 0 rows/s\x1b[K\rinterruption_events: 5 of 5 rows (100 %), 5 rows/s\x1b[K\n",
    );
  });

  it("writes a plain line every 10 s in a log, and nothing for a short import", () => {
    const short = recorder("lines");
    short.progress.update("interruption_events", 0, 100);
    short.advance(3000);
    short.progress.update("interruption_events", 100, 100);
    short.progress.finish();
    expect(short.written).toEqual([]);

    const long = recorder("lines");
    for (let s = 0; s <= 25; s++) {
      long.progress.update("interruption_events", s * 1000, 25_000);
      long.advance(1000);
    }
    long.progress.finish();
    expect(long.written).toEqual([
      "interruption_events: 10,000 of 25,000 rows (40 %), 1,000 rows/s, 15 s left\n",
      "interruption_events: 20,000 of 25,000 rows (80 %), 1,000 rows/s, 5 s left\n",
    ]);
  });

  it("writes nothing when off (--quiet)", () => {
    const { progress, written, advance } = recorder("off");
    progress.update("interruption_events", 0, 10);
    advance(60_000);
    progress.update("interruption_events", 10, 10);
    progress.finish();
    expect(written).toEqual([]);
  });
});
