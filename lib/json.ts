// Reading untrusted JSON text in linear time and bounded depth. JSON.parse itself is linear,
// but what walks its result recursively (masking, fingerprints, JSON.stringify) overflows the
// stack on a value nested a million levels deep, so such text is refused before it is parsed.

/** Deeper values are refused: no real payload nests this far, and every walker stays well within the stack. */
export const MAX_JSON_DEPTH = 512;

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const MINUS = 0x2d;
const COLON = 0x3a;
/** Integers with fewer digits are exact as JSON numbers (2^53 has 16 digits). */
const EXACT_DIGITS = 16;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const endsValue = (c: number) => c === 0x2c || c === 0x7d || c === 0x5d; // , } ]

/** Index of the quote closing the string whose body starts at `from`, or -1 (unterminated). */
function stringEnd(text: string, from: number): number {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return -1;
    // The quote is escaped when an odd run of backslashes precedes it; each backslash is
    // counted once, by the run that ends at the next quote, so the scan stays linear.
    let slashes = 0;
    for (let i = quote - 1; i >= from && text.charCodeAt(i) === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** The nesting depth reached, and the objects and arrays opened, between `from` and `to` (outside strings). */
function depthAcross(text: string, from: number, to: number, depth: { now: number; max: number; opened: number }): void {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      depth.opened++;
      if (++depth.now > depth.max) depth.max = depth.now;
    } else if (c === 0x7d || c === 0x5d) depth.now--;
  }
}

/**
 * Where the long integer value of a `*_ns` key whose closing quote is at `keyEnd` lies, or
 * null when the key is not followed by `: <integer of 16+ digits>` ending the value.
 */
function longNsInteger(text: string, keyEnd: number): { start: number; end: number } | null {
  let at = skipSpace(text, keyEnd + 1);
  if (text.charCodeAt(at) !== COLON) return null;
  const start = skipSpace(text, at + 1);
  at = start;
  if (text.charCodeAt(at) === MINUS) at++;
  const digitsFrom = at;
  while (at < text.length && isDigit(text.charCodeAt(at))) at++;
  if (at - digitsFrom < EXACT_DIGITS) return null;
  const after = skipSpace(text, at);
  return after < text.length && endsValue(text.charCodeAt(after)) ? { start, end: at } : null;
}

export type ScannedJson = {
  /** the text, with the long integer values of `*_ns` keys quoted when asked for */
  text: string;
  /** the deepest nesting of objects and arrays */
  depth: number;
  /** how many objects and arrays it holds */
  containers: number;
};

/**
 * One left-to-right scan of JSON text: its nesting depth and, with `quoteNs`, the text with the
 * long integer values of `*_ns` keys quoted (JSON.parse would round them). Strings are skipped
 * whole, so the work is linear in the text whatever it holds.
 */
export function scanJson(text: string, quoteNs: boolean): ScannedJson {
  const pieces: string[] = [];
  const depth = { now: 0, max: 0, opened: 0 };
  let copied = 0;
  let at = 0;
  for (;;) {
    const open = text.indexOf('"', at);
    depthAcross(text, at, open < 0 ? text.length : open, depth);
    if (open < 0) break;
    const close = stringEnd(text, open + 1);
    if (close < 0) break; // unterminated: JSON.parse reports it
    at = close + 1;
    if (!quoteNs || !text.startsWith("_ns", close - 3)) continue;
    const value = longNsInteger(text, close);
    if (!value) continue;
    depthAcross(text, at, value.start, depth);
    pieces.push(text.slice(copied, value.start), '"', text.slice(value.start, value.end), '"');
    copied = at = value.end;
  }
  if (copied === 0) return { text, depth: depth.max, containers: depth.opened };
  pieces.push(text.slice(copied));
  return { text: pieces.join(""), depth: depth.max, containers: depth.opened };
}

export class JsonTooDeepError extends SyntaxError {
  constructor() {
    super(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

export class JsonTooManyValuesError extends SyntaxError {
  constructor(limit: number) {
    super(`more than ${limit.toLocaleString("en")} objects and arrays`);
  }
}

/**
 * JSON.parse of untrusted text, refusing (JsonTooDeepError) values nested deeper than
 * MAX_JSON_DEPTH and, with `maxContainers`, (JsonTooManyValuesError) text of more objects and
 * arrays than that: each is an allocation, and `{},` is three bytes.
 */
export function parseJsonBounded(text: string, options: { quoteNs?: boolean; maxContainers?: number } = {}): unknown {
  const scanned = scanJson(text, options.quoteNs ?? false);
  if (scanned.depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
  if (options.maxContainers !== undefined && scanned.containers > options.maxContainers) throw new JsonTooManyValuesError(options.maxContainers);
  return JSON.parse(scanned.text);
}

/**
 * A top-level array's elements split at this many bytes. A string of more than 128 KiB is a
 * "large object" to V8: each is mapped afresh and every page of it faults in (on these virtual
 * machines a fault costs microseconds), so decoding a 1 MB batch as one string, and again as the
 * quoted copy, cost about five times more than the same bytes in pieces below that size.
 */
const PIECE_BYTES = 32 * 1024;

export type ContainerScan = { close: number; depth: number; containers: number };

/**
 * One linear walk over UTF-8 JSON bytes, through a container from just after its `[` or `{` (or
 * just after one of its `,`): `onValue` gets the [start, end) of each value between its top-level
 * commas, spaces trimmed (for an array, its elements), and the objects and arrays opened so far
 * (what each value holds is the difference from the one before); the result is the index of its `]` or `}`,
 * the deepest nesting reached (the container itself is 1) and the objects and arrays opened
 * inside it. Null when it nests deeper than MAX_JSON_DEPTH or is malformed where the walk can
 * tell (an unterminated string or container, an empty value between commas). The walk is
 * `scanJson`'s, over bytes: UTF-8 never uses an ASCII byte inside a multi-byte character, so the
 * delimiters are the same.
 */
export function scanContainer(bytes: Buffer, from: number, onValue: (start: number, end: number, opened: number) => void = () => {}): ContainerScan | null {
  let depth = 1;
  let max = 1;
  let opened = 0;
  let start = from;
  let values = 0;
  let at = from;
  /** Reports [start, end) without its spaces, unless nothing is left (then false). */
  const value = (end: number): boolean => {
    let s = start;
    while (s < end && isSpace(bytes[s])) s++;
    while (end > s && isSpace(bytes[end - 1])) end--;
    if (s === end) return false;
    values++;
    onValue(s, end, opened);
    return true;
  };
  for (;;) {
    const open = bytes.indexOf(QUOTE, at);
    const to = open < 0 ? bytes.length : open;
    for (let i = at; i < to; i++) {
      const c = bytes[i];
      if (c === 0x7b || c === 0x5b) {
        opened++;
        if (++depth > max && (max = depth) > MAX_JSON_DEPTH) return null;
      } else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) {
          // only an empty container may end in an empty value: `[1,]` is malformed
          if (!value(i) && (values > 0 || start !== from)) return null;
          return { close: i, depth: max, containers: opened };
        }
      } else if (c === 0x2c && depth === 1) {
        if (!value(i)) return null; // `[,1]`, `[1,,2]`
        start = i + 1;
      }
    }
    if (open < 0) return null;
    const end = byteStringEnd(bytes, open + 1);
    if (end < 0) return null;
    at = end + 1;
  }
}

/** Index of the first byte at or after `at` that is not JSON white space. */
export function skipByteSpace(bytes: Uint8Array, at: number): number {
  while (at < bytes.length && isSpace(bytes[at])) at++;
  return at;
}

/**
 * Walks UTF-8 JSON `bytes` that hold one array or one object (and spaces), `onValue` getting each
 * top-level value (`scanContainer`); whether it is an array, and where it starts and ends. Null
 * when the bytes are neither, nest deeper than MAX_JSON_DEPTH, hold more than `maxContainers`
 * objects and arrays, or are malformed where the walk can tell: parse such text whole, which
 * reports the fault.
 */
function walkTop(bytes: Buffer, maxContainers: number, onValue: (start: number, end: number) => void): { array: boolean; first: number; close: number } | null {
  const first = skipByteSpace(bytes, 0);
  const array = bytes[first] === 0x5b;
  if (!array && bytes[first] !== 0x7b) return null;
  const scan = scanContainer(bytes, first + 1, onValue);
  if (!scan || scan.containers + 1 > maxContainers || skipByteSpace(bytes, scan.close + 1) < bytes.length) return null;
  return { array, first, close: scan.close };
}

/**
 * The top-level values of UTF-8 JSON `bytes` (`walkTop`): for an array, its elements' [start, end)
 * as flat pairs; for an object, the object's. Null as `walkTop` says, or past `maxValues` elements.
 */
export function jsonTopValues(bytes: Buffer, maxContainers: number, maxValues: number): { array: boolean; ranges: number[] } | null {
  const ranges: number[] = [];
  const array = bytes[skipByteSpace(bytes, 0)] === 0x5b;
  let over = false;
  const top = walkTop(bytes, maxContainers, (start, end) => {
    if (!array) return; // an object's members are not kept
    if (ranges.length < 2 * maxValues) ranges.push(start, end);
    else over = true;
  });
  if (!top || over) return null;
  return { array: top.array, ranges: top.array ? ranges : [top.first, top.close + 1] };
}

/**
 * UTF-8 JSON `bytes` whose value is an array, as the texts of consecutive runs of its elements,
 * each itself a JSON array: parsing each and concatenating the results gives the array. Null when
 * the bytes are small (no need), are not an array, or `walkTop` refuses them.
 */
export function jsonArrayPieces(bytes: Buffer, maxContainers = Infinity): string[] | null {
  if (bytes.length <= PIECE_BYTES) return null;
  const cuts: number[] = []; // [start, end) of each run
  const top = walkTop(bytes, maxContainers, (start, end) => {
    const n = cuts.length;
    if (n > 0 && start - cuts[n - 2] < PIECE_BYTES) cuts[n - 1] = end;
    else cuts.push(start, end);
  });
  if (!top?.array) return null;
  const pieces: string[] = [];
  for (let i = 0; i < cuts.length; i += 2) pieces.push(`[${bytes.toString("utf8", cuts[i], cuts[i + 1])}]`);
  return pieces.length ? pieces : ["[]"];
}

/** `stringEnd` over UTF-8 bytes. */
function byteStringEnd(bytes: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    let slashes = 0;
    for (let i = quote - 1; i >= from && bytes[i] === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** Parsed JSON, or undefined when the text is not JSON or nests too deep (valid JSON `null` stays null). */
export function tryParseJson(text: string): unknown {
  try {
    return parseJsonBounded(text);
  } catch {
    return undefined;
  }
}
