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

/** Nodes for `messages` appended after `parentId` (or at the root, seeded by the conversation). */
export function chainNodes(conversationId: string, messages: ChatMessage[], parentId: string | null, startSeq: number): MessageNode[] {
  const nodes: MessageNode[] = [];
  let parent = parentId;
  messages.forEach((m, i) => {
    const { role, parts } = content(m);
    const id = crypto
      .createHash("sha256")
      .update(parent ?? `root:${conversationId}`)
      .update("\u001f")
      .update(role)
      .update("\u001f")
      .update(parts)
      .digest("hex")
      .slice(0, 32);
    nodes.push({ id, parentId: parent, seq: startSeq + i, role, parts });
    parent = id;
  });
  return nodes;
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
