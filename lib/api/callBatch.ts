// Call batches read from their bytes, without reading again what the conversation's previous call
// already sent. An agent sends its whole history with every call, so most of a call's bytes are
// messages the server parsed and validated moments before: parsing and validating them again
// was most of the ingest worker's time. Here the leading `input_messages` elements that are
// byte for byte those of the conversation's previous call are compared (a memcmp), not parsed;
// their validated messages are reused. Same bytes, same value: the result is exactly the whole
// parse's, and anything this path cannot vouch for, faults included, goes to the whole parse.
import crypto from "node:crypto";
import { jsonTopValues, scanContainer, skipByteSpace } from "../json";
import type { ChatMessage, NormalizedCall } from "../domain/calls";
import { callSchema } from "../ingest/schema";
import { MAX_BODY_CONTAINERS, parseJsonBytes, parseJsonText } from "./body";
import { MAX_BATCH_ITEMS, parseBatch } from "./validation";

const INPUT_KEY = Buffer.from('"input_messages":');
const CONVERSATION_KEY = Buffer.from('"conversation_id":"');
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;

/**
 * Stands in for the reused elements in the text that is parsed. Its key holds a secret of this
 * process, so no sender can forge it: finding it first in the parsed call's `input_messages`
 * proves that the key the bytes matched is the call's own (not a nested or duplicated one).
 */
const PLACEHOLDER_KEY = `sightdesk-reused-${crypto.randomBytes(12).toString("hex")}`;
const PLACEHOLDER = `{"${PLACEHOLDER_KEY}":0}`;

/**
 * A conversation's last input history: each element's bytes and its validated message, and what
 * the history holds up to each element (`costs[i]`: elements 0 to i, bytes and messages).
 */
type History = { elements: Buffer[]; messages: ChatMessage[]; costs: number[]; overhead: number };
const costOf = (h: History) => h.overhead + (h.costs.length ? h.costs[h.costs.length - 1] : 0);

/** Conversations share a key when they name the same conversation and begin alike; a few each. */
const PER_KEY = 4;
const histories = new Map<string, History[]>();
let heldBytes = 0;
/**
 * What the histories may hold, as counted (`elementCost`, which errs high: 1,200 conversations of
 * 20 tool-using calls of the bench's traffic counted 145 MB and held 67 MB). A forwarder's
 * batches take turns over all the conversations in flight, so a bound below what they need
 * misses every time (the least recently used goes first): `bench:ingest-http --batch 50` keeps
 * 800 in flight, about 97 MB as counted.
 */
const HISTORY_BYTES = 160 * 1024 * 1024;
/** A history counted above this is not remembered: one body must not empty the cache. */
const LARGEST_HISTORY = HISTORY_BYTES / 8;

/**
 * What an element of UTF-8 JSON holding `containers` objects and arrays keeps, roughly: its
 * bytes, its message's strings (up to two bytes a character), and per object or array, string,
 * and `,` or `:` (a member or an element) what V8 gives it; 100 bytes of views. Counted over the
 * bytes, strings' contents included, so it errs high.
 */
function elementCost(bytes: Buffer, start: number, end: number, containers: number): number {
  let quotes = 0;
  let separators = 0;
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c === QUOTE) quotes++;
    else if (c === COMMA || c === COLON) separators++;
  }
  return 3 * (end - start) + 64 * containers + 16 * quotes + 48 * separators + 100;
}

/** What a history keeps besides its elements: its key, the Map entry, its arrays and objects. */
const historyOverhead = (key: string) => 1024 + 2 * key.length;
/** What a buffer keeps besides its bytes. */
const BUFFER_OVERHEAD = 300;

/** Calls of a batch (one object or an array of them) from its UTF-8 JSON, validated (400 on bad input). */
export function parseCallBatch(bytes: Buffer): NormalizedCall[] {
  const top = jsonTopValues(bytes, MAX_BODY_CONTAINERS, MAX_BATCH_ITEMS);
  if (top && top.ranges.length > 0) {
    const read = readCalls(bytes, top.ranges);
    if (read) return read;
  }
  return parseBatch(callSchema, parseJsonBytes(bytes));
}

/**
 * Every call of `ranges`, or null when any of them needs the whole parse. Each call's history is
 * remembered as soon as it is read, so the next call of its conversation in the same batch reuses
 * it too (what is remembered was validated, whatever becomes of the batch).
 */
function readCalls(bytes: Buffer, ranges: number[]): NormalizedCall[] | null {
  const calls: NormalizedCall[] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    const call = readCall(bytes, ranges[i], ranges[i + 1]);
    if (!call) return null;
    calls.push(call);
  }
  return calls;
}

/** The call in bytes [start, end), its previous history's leading elements reused; null for the whole parse. */
function readCall(bytes: Buffer, start: number, end: number): NormalizedCall | null {
  const keyAt = indexWithin(bytes, INPUT_KEY, start, end);
  const open = keyAt < 0 ? -1 : skipByteSpace(bytes, keyAt + INPUT_KEY.length);
  if (open < 0 || bytes[open] !== 0x5b) return plainCall(bytes, start, end);
  const key = historyKey(bytes, start, end, open);
  const { reused, history, rest } = longestReuse(bytes, open, histories.get(key));
  // rest: the `,` or `]` after the last reused element; with none reused, the first element
  const first = skipByteSpace(bytes, open + 1);
  const joint = reused > 0 || bytes[first] === 0x5d ? "" : ",";
  let raw: unknown;
  try {
    raw = parseJsonText(bytes.toString("utf8", start, open + 1) + PLACEHOLDER + joint + bytes.toString("utf8", rest, end));
  } catch {
    return null;
  }
  const given = (raw as { input_messages?: unknown } | null)?.input_messages;
  if (!Array.isArray(given) || !isPlaceholder(given[0])) return null;
  const fresh = given.slice(1);
  (raw as { input_messages: unknown[] }).input_messages = fresh;
  const checked = callSchema.safeParse(raw);
  if (!checked.success) return null; // the whole parse names the fault
  const call = checked.data;
  call.input_messages = [...(history ? history.messages.slice(0, reused) : []), ...call.input_messages];
  if (fresh.length > 0) {
    const next = nextHistory(bytes, reused > 0 ? rest : open, fresh.length, history, reused, call.input_messages, historyOverhead(key));
    if (next) remember(key, next);
  }
  return call;
}

function plainCall(bytes: Buffer, start: number, end: number): NormalizedCall | null {
  try {
    const checked = callSchema.safeParse(parseJsonText(bytes.toString("utf8", start, end)));
    return checked.success ? checked.data : null;
  } catch {
    return null;
  }
}

const isPlaceholder = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && Object.hasOwn(v, PLACEHOLDER_KEY);

/**
 * Of the remembered histories, the one whose leading elements the array at `open` repeats the
 * most, byte for byte: how many, and where the rest of the array begins (the `,` or `]` after
 * the last one repeated; just after `[` when none).
 */
function longestReuse(bytes: Buffer, open: number, candidates: History[] | undefined): { reused: number; history: History | null; rest: number } {
  let best = { reused: 0, history: null as History | null, rest: open + 1 };
  for (const history of candidates ?? []) {
    let at = open + 1;
    let reused = 0;
    let rest = open + 1;
    for (const element of history.elements) {
      const from = skipByteSpace(bytes, at);
      const to = from + element.length;
      if (to > bytes.length || bytes.compare(element, 0, element.length, from, to) !== 0) break;
      const after = skipByteSpace(bytes, to);
      if (bytes[after] !== 0x2c && bytes[after] !== 0x5d) break;
      reused++;
      rest = after;
      if (bytes[after] === 0x5d) break;
      at = after + 1;
    }
    if (reused > best.reused) best = { reused, history, rest };
  }
  return best;
}

/**
 * The history to remember after a call: `previous`'s first `reused` elements, and copies of the
 * `count` fresh ones after `from` (the `[`, or the `,` ending the reused ones). Every buffer a
 * history holds is all its own elements' bytes, so that their costs are what it keeps: a
 * history that reuses only part of another's copies those elements again. Null when the walk
 * does not find exactly `count`, or when it would count over LARGEST_HISTORY (nothing is copied
 * or remembered then).
 */
function nextHistory(bytes: Buffer, from: number, count: number, previous: History | null, reused: number, messages: ChatMessage[], overhead: number): History | null {
  const ranges: number[] = [];
  const freshCosts: number[] = [];
  let openedBefore = 0;
  const fresh = (start: number, end: number, opened: number) => {
    ranges.push(start, end);
    freshCosts.push(elementCost(bytes, start, end, opened - openedBefore));
    openedBefore = opened;
  };
  if (bytes[from] !== 0x5b && bytes[from] !== 0x2c) return null;
  if (!scanContainer(bytes, from + 1, fresh) || ranges.length !== 2 * count) return null;
  const whole = previous !== null && reused === previous.elements.length;
  const elements = whole ? [...previous.elements] : [];
  const costs = whole ? [...previous.costs] : [];
  const again = whole || !previous ? [] : previous.elements.slice(0, reused);
  const againCosts = again.map((_, i) => previous!.costs[i] - (i > 0 ? previous!.costs[i - 1] : 0));
  let size = again.reduce((n, e) => n + e.length, 0);
  for (let i = 0; i < ranges.length; i += 2) size += ranges[i + 1] - ranges[i];
  let cost = (costs.length ? costs[costs.length - 1] : 0) + BUFFER_OVERHEAD;
  const sum = (items: number[]) => items.reduce((n, c) => n + c, 0);
  if (overhead + cost + sum(againCosts) + sum(freshCosts) > LARGEST_HISTORY) return null;
  // one copy for them all: the request's bytes go back to the request thread
  const copy = Buffer.allocUnsafeSlow(size);
  let at = 0;
  const add = (source: Buffer, start: number, end: number, itsCost: number) => {
    source.copy(copy, at, start, end);
    elements.push(copy.subarray(at, at + end - start));
    at += end - start;
    costs.push((cost += itsCost));
  };
  again.forEach((e, i) => add(e, 0, e.length, againCosts[i]));
  for (let i = 0; i < ranges.length; i += 2) add(bytes, ranges[i], ranges[i + 1], freshCosts[i / 2]);
  return { elements, messages: messages.slice(), costs, overhead };
}

/**
 * Where a call's previous history is looked up: the conversation id it names (when plainly
 * written) and the first bytes of its history. A wrong guess costs only the reuse.
 */
function historyKey(bytes: Buffer, start: number, end: number, open: number): string {
  let id = "";
  const at = indexWithin(bytes, CONVERSATION_KEY, start, end);
  if (at >= 0) {
    const from = at + CONVERSATION_KEY.length;
    const close = indexWithin(bytes, QUOTE, from, Math.min(end, from + 513));
    if (close > from && indexWithin(bytes, BACKSLASH, from, close) < 0) id = bytes.toString("latin1", from, close);
  }
  return `${id}\u0000${bytes.toString("latin1", open + 1, Math.min(end, open + 65))}`;
}

/** Index of `what` in bytes [from, to), or -1: a search never runs past its call (linear in the batch). */
function indexWithin(bytes: Buffer, what: Buffer | number, from: number, to: number): number {
  const at = bytes.subarray(from, to).indexOf(what);
  return at < 0 ? -1 : from + at;
}

/**
 * Keeps `history` as its key's most recent, in place of any it extends (its first elements are
 * the same buffers, which it holds now); the least recently used keys go first when over
 * HISTORY_BYTES. The messages are mostly the objects lib/ingest/messages.ts keeps for the same
 * conversations, counted here too.
 */
function remember(key: string, history: History): void {
  const kept: History[] = [history];
  for (const h of histories.get(key) ?? []) {
    if (kept.length < PER_KEY && !startsWith(history, h)) kept.push(h);
    else heldBytes -= costOf(h);
  }
  histories.delete(key);
  histories.set(key, kept);
  heldBytes += costOf(history);
  while (heldBytes > HISTORY_BYTES && histories.size > 0) {
    const [oldest, held] = histories.entries().next().value!;
    histories.delete(oldest);
    for (const h of held) heldBytes -= costOf(h);
  }
}

const startsWith = (later: History, earlier: History) =>
  earlier.elements.length <= later.elements.length && earlier.elements.every((e, i) => later.elements[i] === e);

/**
 * What the histories count; the bytes of the buffers they hold and of their elements (tests: the
 * same, each buffer being its elements' bytes alone); the bound.
 */
export function historyMemory(): { counted: number; buffers: number; elements: number; limit: number } {
  const buffers = new Set<ArrayBufferLike>();
  const elements = new Set<Buffer>();
  for (const held of histories.values()) {
    for (const h of held) {
      for (const e of h.elements) {
        buffers.add(e.buffer);
        elements.add(e);
      }
    }
  }
  const sum = <T>(items: Set<T>, size: (t: T) => number) => [...items].reduce((n, t) => n + size(t), 0);
  return { counted: heldBytes, buffers: sum(buffers, (b) => b.byteLength), elements: sum(elements, (e) => e.length), limit: HISTORY_BYTES };
}

/** Forgets every history (tests). */
export function forgetHistories(): void {
  histories.clear();
  heldBytes = 0;
}
