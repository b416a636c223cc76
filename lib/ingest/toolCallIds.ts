// Ids for tool calls that came without one (OTLP's conventions make `id` optional; Gemini's
// function calls have none; some OpenAI-compatible servers send ""), so that tool-call balance
// and tool results pair them as the provider did: by order.
import crypto from "node:crypto";
import type { ChatMessage, Part } from "../domain/calls";
import { canonicalJson } from "../detect/text";

/** A tool call or response that came without an id (`withToolCallIds` gives it one, or drops it). */
export const idlessToolPart = (p: Part): boolean => (p.type === "tool_call" || p.type === "tool_call_response") && !p.id;

/**
 * Ids for tool calls sent without one (the conventions make `id` optional; Gemini's function
 * calls have none), the same in every call of a conversation: a hash of the conversation
 * (`scope`: its id, or what it starts with), the call's name and arguments (canonical JSON), and
 * how many such calls came before it in the history. A response without an id answers the
 * oldest unanswered id-less call (of its name, when it gives one). `input` and then `output` are
 * read in order, as one history; id-less parts left unpaired are dropped. A history trimmed at
 * its start can count differently: its calls then get other ids than before.
 */
export function withToolCallIds(input: ChatMessage[], output: ChatMessage[], scope: string): void {
  const seen = new Map<string, number>();
  const open = new OpenCalls();
  for (const m of [...input, ...output]) {
    if (!m.parts.some(idlessToolPart)) continue;
    m.parts = m.parts.flatMap((p): Part[] => {
      if (p.type === "tool_call" && !p.id) {
        const key = `${p.name}\u0000${canonicalJson(p.arguments ?? null)}`;
        const n = seen.get(key) ?? 0;
        seen.set(key, n + 1);
        const id = `call_${crypto.createHash("sha256").update(`${scope}\u0000${key}\u0000${n}`).digest("hex").slice(0, 24)}`;
        open.add(id, p.name);
        return [{ ...p, id }];
      }
      if (p.type === "tool_call_response" && !p.id) {
        const { name, ...rest } = p as typeof p & { name?: string };
        const id = open.answer(name);
        return id === null ? [] : [{ ...rest, id }];
      }
      return [p];
    });
  }
}

type OpenCall = { id: string; answered: boolean };

/**
 * Id-less tool calls not answered yet, oldest first, in all and by name. Each queue is read from
 * a head that only moves on (past calls answered through the other queue): a response costs
 * constant time, however many calls are open (a scan of them per response was quadratic).
 */
class OpenCalls {
  private readonly all: OpenCall[] = [];
  private head = 0;
  private readonly byName = new Map<string, { calls: OpenCall[]; head: number }>();

  add(id: string, name: string): void {
    const call = { id, answered: false };
    this.all.push(call);
    const named = this.byName.get(name) ?? { calls: [], head: 0 };
    named.calls.push(call);
    this.byName.set(name, named);
  }

  /** The id of the oldest open call (of `name`, when given), now answered; null when there is none. */
  answer(name: string | undefined): string | null {
    const queue = name ? this.byName.get(name) : undefined;
    if (name && !queue) return null;
    const calls = queue ? queue.calls : this.all;
    let at = queue ? queue.head : this.head;
    while (at < calls.length && calls[at].answered) at++;
    if (queue) queue.head = at;
    else this.head = at;
    if (at === calls.length) return null;
    calls[at].answered = true;
    return calls[at].id;
  }
}

/** What identifies a conversation for `withToolCallIds`: its id, else its system instructions and first user message. */
export const conversationScope = (conversationId: string | null, system: Part[] | null, input: ChatMessage[]): string =>
  conversationId ?? canonicalJson([system ?? [], input.find((m) => m.role === "user")?.parts ?? null]);
