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
const BACKSLASH = 0x5c;

/**
 * Stands in for the reused elements in the text that is parsed. Its key holds a secret of this
 * process, so no sender can forge it: finding it first in the parsed call's `input_messages`
 * proves that the key the bytes matched is the call's own (not a nested or duplicated one).
 */
const PLACEHOLDER_KEY = `sightdesk-reused-${crypto.randomBytes(12).toString("hex")}`;
const PLACEHOLDER = `{"${PLACEHOLDER_KEY}":0}`;

/** A conversation's last input history: each element's bytes and its validated message. */
type History = { elements: Buffer[]; messages: ChatMessage[]; bytes: number };

/** Conversations share a key when they name the same conversation and begin alike; a few each. */
const PER_KEY = 4;
const histories = new Map<string, History[]>();
let heldBytes = 0;
/** What the histories may hold: about 1,000 conversations of 20 tool-using calls. */
const HISTORY_BYTES = 32 * 1024 * 1024;
/** Objects per element (the Buffer view, the array slot), roughly. */
const ELEMENT_OVERHEAD = 100;

/** Calls of a batch (one object or an array of them) from its UTF-8 JSON, validated (400 on bad input). */
export function parseCallBatch(bytes: Buffer): NormalizedCall[] {
  const top = jsonTopValues(bytes, MAX_BODY_CONTAINERS);
  const count = top ? top.ranges.length / 2 : 0;
  if (top && count > 0 && count <= MAX_BATCH_ITEMS) {
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
  const reusedMessages = history ? history.messages.slice(0, reused) : [];
  call.input_messages = [...reusedMessages, ...call.input_messages];
  const elements = freshElements(bytes, reused > 0 ? rest : open, fresh.length, history?.elements.slice(0, reused) ?? []);
  if (elements?.length) remember(key, { elements, messages: call.input_messages, bytes: 0 });
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
 * The input history's elements for the next call: the reused ones, and copies of the `count`
 * fresh ones after `from` (the `[` or the `,`/`]` ending the reused ones). Null when the walk
 * does not find exactly those (then nothing is remembered).
 */
function freshElements(bytes: Buffer, from: number, count: number, reused: Buffer[]): Buffer[] | null {
  if (count === 0) return reused;
  if (bytes[from] !== 0x5b && bytes[from] !== 0x2c) return null;
  const scan = scanContainer(bytes, from + 1);
  if (!scan || scan.ranges.length !== 2 * count) return null;
  const { ranges } = scan;
  // one copy for them all: the request's bytes go back to the request thread
  const copy = Buffer.allocUnsafeSlow(ranges[ranges.length - 1] - ranges[0]);
  bytes.copy(copy, 0, ranges[0], ranges[ranges.length - 1]);
  const fresh: Buffer[] = [];
  for (let i = 0; i < ranges.length; i += 2) fresh.push(copy.subarray(ranges[i] - ranges[0], ranges[i + 1] - ranges[0]));
  return [...reused, ...fresh];
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

/**
 * Keeps `history` as its key's most recent, in place of any it extends (its first elements are
 * the same buffers); the least recently used keys go first when over HISTORY_BYTES. The messages
 * are mostly the objects lib/ingest/messages.ts keeps for the same conversations.
 */
/** Index of `what` in bytes [from, to), or -1: a search never runs past its call (linear in the batch). */
function indexWithin(bytes: Buffer, what: Buffer | number, from: number, to: number): number {
  const at = bytes.subarray(from, to).indexOf(what);
  return at < 0 ? -1 : from + at;
}

function remember(key: string, history: History): void {
  history.bytes = history.elements.reduce((n, e) => n + e.length + ELEMENT_OVERHEAD, 0);
  const kept: History[] = [history];
  for (const h of histories.get(key) ?? []) {
    if (kept.length < PER_KEY && !startsWith(history, h)) kept.push(h);
    else heldBytes -= h.bytes;
  }
  histories.delete(key);
  histories.set(key, kept);
  heldBytes += history.bytes;
  while (heldBytes > HISTORY_BYTES && histories.size > 1) {
    const [oldest, held] = histories.entries().next().value!;
    histories.delete(oldest);
    for (const h of held) heldBytes -= h.bytes;
  }
}

const startsWith = (later: History, earlier: History) =>
  earlier.elements.length <= later.elements.length && earlier.elements.every((e, i) => later.elements[i] === e);

/** Forgets every history (tests). */
export function forgetHistories(): void {
  histories.clear();
  heldBytes = 0;
}
