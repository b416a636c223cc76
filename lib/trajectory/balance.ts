// The running tool-call balance of a history (SPEC §3.2), message by message: +1 per tool
// call, −1 per tool response; a safe cut point is where the balance falls from > 0 back to 0.
// Mirrors lib/detect/toolBalance.ts so that output messages can continue the input's series.
import type { Message } from "./types";

export type BalanceStep = {
  index: number;
  role: string;
  /** tool call ids this message opens */
  opened: string[];
  /** tool response ids this message carries */
  closed: string[];
  /** balance after this message */
  balance: number;
  /** the balance went from > 0 back to 0 with this message */
  safeCut: boolean;
};

export function balanceSteps(messages: Message[], startBalance = 0): BalanceStep[] {
  let balance = startBalance;
  return messages.map((m, index) => {
    const before = balance;
    const opened: string[] = [];
    const closed: string[] = [];
    for (const p of m.parts) {
      if (p.type === "tool_call") opened.push(p.id);
      else if (p.type === "tool_call_response") closed.push(p.id);
    }
    balance += opened.length - closed.length;
    return { index, role: m.role, opened, closed, balance, safeCut: before > 0 && balance === 0 };
  });
}

/** Tool calls opened in `messages` that no later message answers (ids, in order). */
export function unansweredCalls(messages: Message[]): string[] {
  const open = new Map<string, true>();
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === "tool_call_response") open.delete(p.id);
      else if (p.type === "tool_call") open.set(p.id, true);
    }
  }
  return [...open.keys()];
}
