// A conversation's detection state as stored in its row: the dead-loop window and the failure
// counts. Every call of the conversation reads the state and writes it back whole, so each
// window entry is stored as an array — [tools, text, inputTokens, idle] — not an object with
// its keys spelled out (a third of a bare entry's bytes). Rows written before (entries as
// objects, with a call id and tool names the rules do not read) are read as well.
import type { CallSummary } from "../detect/deadLoop";

export type DetectState = { window: CallSummary[]; counts: Record<string, number> };

type StoredEntry = [tools: string[], text: string, inputTokens: number | null, idle: boolean];

const stored = (s: CallSummary): StoredEntry => [s.tools, s.text, s.inputTokens, s.idle];

function summaryOf(entry: unknown): CallSummary {
  if (Array.isArray(entry)) {
    const [tools, text, inputTokens, idle] = entry as StoredEntry;
    return { tools, text, inputTokens, idle };
  }
  const { tools, text, inputTokens, idle } = entry as CallSummary;
  return { tools, text, inputTokens, idle };
}

export function detectStateJson(state: DetectState): string {
  return JSON.stringify({ window: state.window.map(stored), counts: state.counts });
}

/** The stored state; an unreadable one reads as a fresh state (detection starts over). */
export function parseDetectState(text: string): DetectState {
  try {
    const parsed = JSON.parse(text) as { window?: unknown[]; counts?: Record<string, number> };
    return { window: (parsed.window ?? []).map(summaryOf), counts: parsed.counts ?? {} };
  } catch {
    return { window: [], counts: {} };
  }
}
