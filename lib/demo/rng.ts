// Deterministic randomness for the demo data: every id and every jitter comes from a seeded
// generator or a hash of a stable label, so two runs with the same base time are identical
// (ingest is idempotent on call_id, and replays must not add anything).
import { createHash } from "node:crypto";

export function hashHex(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\u001f"), "utf8").digest("hex");
}

/** A UUID (version-4 layout) derived from a label: stable across runs. */
export function uuidFrom(...parts: string[]): string {
  const h = hashHex("uuid", ...parts);
  const variant = (8 | (parseInt(h[16], 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** mulberry32, seeded from a label. */
export class Rng {
  private state: number;

  constructor(seed: string) {
    this.state = parseInt(hashHex("rng", seed).slice(0, 8), 16) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)];
  }

  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  alnum(length: number): string {
    let s = "";
    for (let i = 0; i < length; i++) s += ALNUM[Math.floor(this.next() * ALNUM.length)];
    return s;
  }

  hex(length: number): string {
    let s = "";
    for (let i = 0; i < length; i++) s += Math.floor(this.next() * 16).toString(16);
    return s;
  }
}
