// Pairing tool calls with their responses for display, and choosing which part of a long
// history to show by default.
import type { Message, ToolCallRecord } from "./types";

export type ToolResponse =
  | { source: "history"; messageIndex: number; partIndex: number; response: unknown; isError: boolean }
  | { source: "record"; response: string | null; isError: boolean; error: string | null };

export type ToolPairing = {
  /** a tool call id → its response (first one after the call, else the recorded result) */
  responseOf: Map<string, ToolResponse>;
  /** "<messageIndex>:<partIndex>" of a response → message index of the call it answers */
  callOfResponse: Map<string, number>;
  /** tool call id → message index of the call */
  callMessage: Map<string, number>;
};

export const partKey = (messageIndex: number, partIndex: number) => `${messageIndex}:${partIndex}`;

/** Pairs each tool call with the first later response with its id (or its recorded result). */
export function pairToolCalls(messages: Message[], records: ToolCallRecord[] = []): ToolPairing {
  const responseOf = new Map<string, ToolResponse>();
  const callOfResponse = new Map<string, number>();
  const callMessage = new Map<string, number>();
  const waiting = new Map<string, number>();
  messages.forEach((m, mi) => {
    m.parts.forEach((p, pi) => {
      if (p.type === "tool_call_response") {
        const at = waiting.get(p.id);
        if (at !== undefined && at < mi) {
          waiting.delete(p.id);
          responseOf.set(p.id, { source: "history", messageIndex: mi, partIndex: pi, response: p.response, isError: p.is_error === true });
          callOfResponse.set(partKey(mi, pi), at);
        }
      }
    });
    m.parts.forEach((p) => {
      if (p.type === "tool_call" && !callMessage.has(p.id)) {
        callMessage.set(p.id, mi);
        waiting.set(p.id, mi);
      }
    });
  });
  const byId = new Map(records.map((r) => [r.tool_call_id, r]));
  for (const id of waiting.keys()) {
    const r = byId.get(id);
    if (r && (r.response !== null || r.error !== null)) {
      responseOf.set(id, { source: "record", response: r.response, isError: r.success === false || r.error !== null, error: r.error });
    }
  }
  return { responseOf, callOfResponse, callMessage };
}

/**
 * The first input message to show by default: the messages this call added (`newFrom`), but
 * at least the last `minTail` and at most the last `maxTail` of them.
 */
export function defaultWindowStart(count: number, newFrom: number, minTail = 3, maxTail = 12): number {
  const from = Math.min(Math.max(0, newFrom), Math.max(0, count - minTail));
  return Math.max(from, count - maxTail, 0);
}

/** Text of an untrusted value for a <pre>: strings as they are, anything else as JSON. */
export function displayValue(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "";
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Tool arguments often arrive as a JSON string: show them pretty-printed when they are. */
export function displayArguments(v: unknown): string {
  if (typeof v === "string") {
    const s = v.trim();
    if (s.startsWith("{") || s.startsWith("[")) {
      try {
        return JSON.stringify(JSON.parse(s), null, 2);
      } catch {
        return v;
      }
    }
    return v;
  }
  return displayValue(v);
}

/** A string cut at `max` characters, with how much was left out. */
export function clip(text: string, max: number): { text: string; hidden: number } {
  return text.length <= max ? { text, hidden: 0 } : { text: text.slice(0, max), hidden: text.length - max };
}
