// Tool-call balance of a request history (SPEC §3.2). Providers reject a history whose tool
// calls are not paired with responses, and keep rejecting every later request carrying it.

import type { ChatMessage, Part } from "../domain/calls";

export type ToolBalance = {
  /** tool calls with no response before the next user/assistant turn or the end of history */
  dangling: string[];
  /** responses whose id was never called */
  orphan: string[];
  /** ids called more than once */
  duplicate: string[];
  /** balance (+1 per tool_call part, −1 per tool_call_response part) after each message */
  series: number[];
  /** message indexes after which the balance went from > 0 back to 0 */
  safeCuts: number[];
  /** no dangling, orphan or duplicate id */
  balanced: boolean;
};

/** Ids of each kind kept with a call and its finding: a history can name thousands. */
export const MAX_LISTED_IDS = 20;

/**
 * What is kept of an unbalanced history with its call and its interruption (SPEC §3.2): the first
 * ids of each kind and how many there were. Not the per-message series: it grows with the history,
 * and every later call of a bricked conversation would store it again (the call's page works the
 * whole balance out from its history).
 */
export type Imbalance = {
  dangling: string[];
  orphan: string[];
  duplicate: string[];
  dangling_count: number;
  orphan_count: number;
  duplicate_count: number;
};

/**
 * The longest tool-call id and tool name kept (with a call's imbalance, a dead-loop window, a
 * finding): providers' are tens of characters. The ingest schema refuses longer ones; adapters of
 * raw exchanges do not, so what is kept is cut to it as well.
 */
export const MAX_TOOL_REF_CHARS = 512;

const listed = (ids: string[]) => ids.slice(0, MAX_LISTED_IDS).map((id) => id.slice(0, MAX_TOOL_REF_CHARS));

/** An imbalance as a call stored it; rows stored before counts were kept hold every id (and the series). */
export type StoredImbalance = Pick<Imbalance, "dangling" | "orphan" | "duplicate"> & Partial<Imbalance>;

/** What a call keeps of its history's balance: null when balanced. */
export const imbalanceOf = (b: ToolBalance): Imbalance | null => (b.balanced ? null : keptImbalance(b));

/**
 * What is kept of an imbalance with every id (a balance worked out now, or a row stored before
 * the counts): its first ids of each kind, cut to MAX_TOOL_REF_CHARS, and how many there were.
 */
export function keptImbalance(stored: StoredImbalance): Imbalance {
  return {
    dangling: listed(stored.dangling),
    orphan: listed(stored.orphan),
    duplicate: listed(stored.duplicate),
    dangling_count: stored.dangling_count ?? stored.dangling.length,
    orphan_count: stored.orphan_count ?? stored.orphan.length,
    duplicate_count: stored.duplicate_count ?? stored.duplicate.length,
  };
}

/** An ordered set: ids are reported once each, in order of discovery. */
class IdList {
  private readonly ids = new Set<string>();
  add(id: string): void {
    this.ids.add(id);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
  list(): string[] {
    return [...this.ids];
  }
}

type State = {
  pending: Set<string>;
  called: Set<string>;
  dangling: IdList;
  orphan: IdList;
  duplicate: IdList;
  balance: number;
};

/** A message that opens a new user/assistant turn: tool results must come before it. */
function opensTurn(m: ChatMessage): boolean {
  if (m.role !== "user" && m.role !== "assistant") return false;
  return m.parts.some((p) => p.type === "text" || p.type === "tool_call");
}

/** The responses in `parts` to a call in `parts` itself; null when there are none (the usual message). */
function ownAnswers(parts: Part[]): Set<Part> | null {
  let calls: Set<string> | null = null;
  for (const p of parts) if (p.type === "tool_call") (calls ??= new Set()).add(p.id);
  if (!calls) return null;
  const own = new Set(parts.filter((p) => p.type === "tool_call_response" && calls!.has(p.id)));
  return own.size ? own : null;
}

function flushPending(s: State): void {
  for (const id of s.pending) s.dangling.add(id);
  s.pending.clear();
}

function applyResponses(s: State, parts: Part[]): void {
  for (const p of parts) {
    if (p.type !== "tool_call_response") continue;
    s.balance -= 1;
    if (s.pending.has(p.id)) s.pending.delete(p.id);
    // A late response to a flushed call keeps it dangling; it is not also an orphan.
    else if (!s.called.has(p.id)) s.orphan.add(p.id);
  }
}

function applyCalls(s: State, parts: Part[]): void {
  for (const p of parts) {
    if (p.type !== "tool_call") continue;
    s.balance += 1;
    if (s.called.has(p.id)) s.duplicate.add(p.id);
    s.called.add(p.id);
    s.pending.add(p.id);
  }
}

export function toolBalance(messages: ChatMessage[]): ToolBalance {
  const s: State = {
    pending: new Set(),
    called: new Set(),
    dangling: new IdList(),
    orphan: new IdList(),
    duplicate: new IdList(),
    balance: 0,
  };
  const series: number[] = [];
  const safeCuts: number[] = [];

  messages.forEach((m, i) => {
    const before = s.balance;
    // a server tool's result sits in the assistant message of its call (Anthropic's web search):
    // it answers that call, after it; the other responses answer earlier calls, before any flush
    const own = ownAnswers(m.parts);
    applyResponses(s, own ? m.parts.filter((p) => !own.has(p)) : m.parts);
    if (opensTurn(m)) flushPending(s);
    applyCalls(s, m.parts);
    if (own) applyResponses(s, [...own]);
    series.push(s.balance);
    if (before > 0 && s.balance === 0) safeCuts.push(i);
  });
  flushPending(s);

  const dangling = s.dangling.list();
  const orphan = s.orphan.list();
  const duplicate = s.duplicate.list();
  return {
    dangling,
    orphan,
    duplicate,
    series,
    safeCuts,
    balanced: dangling.length === 0 && orphan.length === 0 && duplicate.length === 0,
  };
}
