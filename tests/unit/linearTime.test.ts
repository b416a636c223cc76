// Every reader of untrusted text on the ingest path costs time linear in the text's size:
// for each hostile text, four runs at 1 MiB take about as long as one run at 4 MiB. A
// quadratic reader takes four times as long at 4 MiB (the ratio, not an absolute time, is
// asserted, so a slow or busy machine does not fail it).
import { describe, expect, it } from "vitest";
import { HOSTILE_TEXTS, HOT_PATHS, SHAPED_PATHS } from "../support/adversarial";

const MiB = 1024 * 1024;
/** Linear work gives ≈ 1; quadratic gives ≈ 4. */
const MAX_RATIO = 2.5;

function elapsedMs(work: () => void): number {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Time of one 4 MiB run over the time of four 1 MiB runs: the best of `trials` of each. */
function growth<T>(run: (input: T) => unknown, small: T, large: T, trials: number): { ratio: number; smallMs: number; largeMs: number } {
  let smallMs = Infinity;
  let largeMs = Infinity;
  for (let t = 0; t < trials; t++) {
    smallMs = Math.min(smallMs, elapsedMs(() => { for (let i = 0; i < 4; i++) run(small); }));
    largeMs = Math.min(largeMs, elapsedMs(() => run(large)));
  }
  // below a millisecond the clock and the JIT dominate: such a path is linear enough
  return { ratio: largeMs < 1 ? 1 : largeMs / smallMs, smallMs, largeMs };
}

describe("readers of untrusted text take linear time", () => {
  for (const path of HOT_PATHS) {
    it(path.name, { timeout: 120_000 }, () => {
      const slow: string[] = [];
      for (const [name, make] of Object.entries(HOSTILE_TEXTS)) {
        const small = make(MiB);
        const large = make(4 * MiB);
        // warm up the JIT, and the large text: its first read costs its pages' faults (12–21 ms
        // for a 4 MiB run that then takes 1 ms), which made every first trial look quadratic
        path.run(small);
        path.run(large);
        // one trial, and more only when it looks slow (a busy moment, or real growth): most
        // texts are clearly linear, and this test is the suite's largest CPU cost
        let g = growth(path.run, small, large, 1);
        if (g.ratio > MAX_RATIO) g = growth(path.run, small, large, 4);
        if (g.ratio > MAX_RATIO) slow.push(`${name}: 4 × 1 MiB ${g.smallMs.toFixed(1)} ms, 4 MiB ${g.largeMs.toFixed(1)} ms (×${g.ratio.toFixed(1)})`);
      }
      expect(slow).toEqual([]);
    });
  }
});

describe("ingest steps over inputs of many parts take linear time", () => {
  for (const path of SHAPED_PATHS) {
    it(path.name, { timeout: 120_000 }, () => {
      const [small, large] = [path.prepare(MiB), path.prepare(4 * MiB)];
      const run = (work: () => unknown) => work();
      small(); // warm up
      let g = growth(run, small, large, 1);
      if (g.ratio > MAX_RATIO) g = growth(run, small, large, 4);
      expect(g.ratio, `4 × 1 MiB ${g.smallMs.toFixed(1)} ms, 4 MiB ${g.largeMs.toFixed(1)} ms`).toBeLessThanOrEqual(MAX_RATIO);
    });
  }
});
