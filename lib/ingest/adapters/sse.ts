// Wire-level parsing shared by the provider adapters: text/event-stream framing, and lenient
// JSON reading (captured bodies are untrusted: any field may be missing or of another type).
import { tryParseJson } from "../../json";
import { MAX_INT } from "../../domain/calls";

/** One server-sent event: its `event:` name, if any, and its data lines joined by "\n". */
export type SseEvent = { event?: string; data: string };

/**
 * Splits raw text/event-stream text into events (WHATWG framing: CRLF/CR/LF line ends, `:`
 * comments, multi-line data). Unlike a live EventSource, a final event without its blank line
 * is kept: captures are often cut mid-stream, and the cut is exactly what we need to see.
 */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let event: string | undefined;
  let data: string[] = [];
  const dispatch = () => {
    // Blocks without a data line (e.g. only `event:` or `id:`) are not events.
    if (data.length > 0) events.push(event ? { event, data: data.join("\n") } : { data: data.join("\n") });
    event = undefined;
    data = [];
  };
  for (const line of text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)) {
    if (line === "") dispatch();
    else if (!line.startsWith(":")) {
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const raw = colon < 0 ? "" : line.slice(colon + 1);
      const value = raw.startsWith(" ") ? raw.slice(1) : raw;
      if (field === "data") data.push(value);
      else if (field === "event") event = value || undefined;
    }
  }
  dispatch();
  return events;
}

/** Parsed JSON, or undefined when the text is not JSON or nests too deep (valid JSON `null` stays null). */
export const parseJson = tryParseJson;

export type JsonObject = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

export function asString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export function asNumber(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** A token count: a non-negative integer that fits an Int column; anything else reads as absent. */
export function asCount(v: unknown): number | undefined {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_INT ? (v as number) : undefined;
}

/** The objects of an array field; anything else reads as empty. */
export function records(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

/** Tool arguments as an object when they are a JSON string, else as given (partial JSON of a cut stream stays text). */
export function parseArguments(v: unknown): unknown {
  if (typeof v !== "string") return v;
  const parsed = parseJson(v);
  return parsed === undefined ? v : parsed;
}
