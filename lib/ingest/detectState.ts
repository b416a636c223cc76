// A conversation's detection state as stored in its row: the dead-loop window and the failure
// counts. Every call of the conversation reads the state and writes it back whole, so each
// window entry is stored as an array — [tools, text, inputTokens, idle] — not an object with
// its keys spelled out (a third of a bare entry's bytes), under a key of its own: a process of
// the version before (a rolling restart, a rollback) reads no window there and starts the
// conversation's window afresh, where entries of a shape it does not know would fail its rules.
// Rows written before (`window`, entries as objects) are read as well.
import type { CallSummary } from "../detect/deadLoop";

export type DetectState = { window: CallSummary[]; counts: Record<string, number> };

type StoredEntry = [tools: string[], text: string, inputTokens: number | null, idle: boolean];
type Stored = { compactWindow?: StoredEntry[]; window?: CallSummary[]; counts?: Record<string, number> };

const stored = (s: CallSummary): StoredEntry => [s.tools, s.text, s.inputTokens, s.idle];
const fromStored = ([tools, text, inputTokens, idle]: StoredEntry): CallSummary => ({ tools, text, inputTokens, idle });
const fromFormer = ({ tools, text, inputTokens, idle }: CallSummary): CallSummary => ({ tools, text, inputTokens, idle });

export function detectStateJson(state: DetectState): string {
  const row: Stored = { compactWindow: state.window.map(stored), counts: state.counts };
  return JSON.stringify(row);
}

/** The stored state; an unreadable one reads as a fresh state (detection starts over). */
export function parseDetectState(text: string): DetectState {
  try {
    const row = JSON.parse(text) as Stored;
    const window = row.compactWindow ? row.compactWindow.map(fromStored) : (row.window ?? []).map(fromFormer);
    return { window, counts: row.counts ?? {} };
  } catch {
    return { window: [], counts: {} };
  }
}
