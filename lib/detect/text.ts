// Text helpers for the detection rules: similarity of outputs and stable fingerprints of
// tool arguments (SPEC §3.3).

import { createHash } from "node:crypto";
import { tryParseJson } from "../json";
import { Memo } from "../memo";

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/\s+/).filter((w) => w !== ""));
}

/** CJK text has no spaces between words, so it is compared by character bigrams. */
function bigramSet(text: string): Set<string> {
  const chars = [...text.toLowerCase().replace(/\s+/g, "")];
  if (chars.length === 1) return new Set(chars);
  const grams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i] + chars[i + 1]);
  return grams;
}

/**
 * Jaccard similarity of two texts: lower-cased whitespace-separated words, or character
 * bigrams when either text has CJK characters. Empty texts score 0: there is nothing to
 * compare, and empty outputs are not a loop.
 */
export function jaccard(a: string, b: string): number {
  const ta = setsOf(a);
  const tb = setsOf(b);
  const cjk = ta.cjk || tb.cjk;
  const sa = cjk ? (ta.bigrams ??= bigramSet(a)) : (ta.words ??= wordSet(a));
  const sb = cjk ? (tb.bigrams ??= bigramSet(b)) : (tb.words ??= wordSet(b));
  if (sa.size === 0 || sb.size === 0) return 0;
  let shared = 0;
  for (const x of sa) if (sb.has(x)) shared++;
  return shared / (sa.size + sb.size - shared);
}

/**
 * The sets of texts compared lately, made once: the dead-loop rules compare every output of a
 * conversation's window with every later one, at every call, and the window moves by one.
 */
type TextSets = { cjk: boolean; words?: Set<string>; bigrams?: Set<string> };
const recentTexts = new Memo<TextSets>(2_000);

const setsOf = (text: string): TextSets => recentTexts.get(text, () => ({ cjk: CJK.test(text) }));

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function sortedCopy(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

/** JSON with object keys sorted at every depth and no whitespace. */
export function canonicalJson(v: unknown): string {
  const json = JSON.stringify(v, (_key, val: unknown) => {
    if (typeof val === "bigint") return val.toString();
    return isPlainObject(val) ? sortedCopy(val) : val;
  }) as string | undefined;
  // JSON.stringify gives undefined for undefined/functions/symbols at the top level.
  return json ?? "null";
}

/** Tool arguments often arrive as a JSON string (OpenAI) and sometimes as an object. */
function parseArgs(args: unknown): unknown {
  if (typeof args !== "string") return args;
  const parsed = tryParseJson(args);
  return parsed === undefined ? args : parsed;
}

/** Short stable hash of the canonical arguments: equal arguments give equal fingerprints. */
export function fingerprintArgs(args: unknown): string {
  return createHash("sha256").update(canonicalJson(parseArgs(args))).digest("hex").slice(0, 16);
}
