// Message histories as chains of content-addressed nodes: a node's id hashes its parent's id
// and its own content, so a prefix shared by many calls of a conversation is one set of rows,
// and each call stores only the messages its history adds (no quadratic growth).
import crypto from "node:crypto";
import type { ChatMessage } from "./types";

export type MessageNode = { id: string; parentId: string | null; seq: number; role: string; parts: string };

/** The stored content of a message: role and parts (a finish_reason belongs to the call). */
function content(m: ChatMessage): { role: string; parts: string } {
  return { role: m.role, parts: JSON.stringify(m.parts) };
}

function nodeId(parent: string | null, conversationId: string, role: string, parts: string): string {
  return crypto
    .createHash("sha256")
    .update(parent ?? `root:${conversationId}`)
    .update("\u001f")
    .update(role)
    .update("\u001f")
    .update(parts)
    .digest("hex")
    .slice(0, 32);
}

/**
 * The last chain computed per conversation. Ids are pure functions of content, so this only
 * saves work: a history that repeats the previous call's messages reuses their ids instead of
 * hashing the whole history again on every call.
 */
const recentChains = new Map<string, MessageNode[]>();
const RECENT_CHAINS_MAX = 500;

function remember(conversationId: string, nodes: MessageNode[]): void {
  recentChains.delete(conversationId);
  recentChains.set(conversationId, nodes);
  if (recentChains.size > RECENT_CHAINS_MAX) recentChains.delete(recentChains.keys().next().value!);
}

/** Nodes for `messages` appended after `parentId` (or at the root, seeded by the conversation). */
export function chainNodes(conversationId: string, messages: ChatMessage[], parentId: string | null, startSeq: number): MessageNode[] {
  const previous = parentId === null ? recentChains.get(conversationId) : undefined;
  const nodes: MessageNode[] = [];
  let parent = parentId;
  let sameAsPrevious = previous !== undefined;
  messages.forEach((m, i) => {
    const { role, parts } = content(m);
    const cached = sameAsPrevious ? previous![i] : undefined;
    sameAsPrevious = cached !== undefined && cached.role === role && cached.parts === parts;
    const id = sameAsPrevious ? cached!.id : nodeId(parent, conversationId, role, parts);
    nodes.push({ id, parentId: parent, seq: startSeq + i, role, parts });
    parent = id;
  });
  return nodes;
}

/** Records a call's whole chain (input then output) for the next call of its conversation. */
export function rememberChain(conversationId: string, input: MessageNode[], output: MessageNode[]): void {
  remember(conversationId, output.length ? [...input, ...output] : input);
}

/** Rebuilds a history from its tail node, given the conversation's nodes by id. */
export function historyFrom(tailId: string | null, byId: Map<string, { parentId: string | null; role: string; parts: string }>): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let id = tailId; id; ) {
    const node = byId.get(id);
    if (!node) break;
    out.push({ role: node.role, parts: JSON.parse(node.parts) });
    id = node.parentId;
  }
  return out.reverse();
}
