// Message histories as chains of content-addressed nodes: a node's id hashes its parent's id
// and its own content, so a prefix shared by many calls of a conversation is one set of rows,
// and each call stores only the messages its history adds (no quadratic growth).
import crypto from "node:crypto";
import { maskSecretKeys, redactText } from "./redact";
import type { ChatMessage, Part } from "../domain/calls";

export type MessageNode = { id: string; parentId: string | null; seq: number; role: string; parts: string };

/** The stored content of a message: role and parts (a finish_reason belongs to the call). */
function content(m: ChatMessage): { role: string; parts: string } {
  return { role: m.role, parts: JSON.stringify(m.parts.map(maskArguments)) };
}

/**
 * Credential fields of tool arguments and results are masked by key (whatever they hold: an
 * object or a list too, which masking the text by shape cannot cut out), before the text is
 * masked by shape.
 */
const maskArguments = (p: Part): Part =>
  p.type === "tool_call" ? { ...p, arguments: maskSecretKeys(p.arguments) } : p.type === "tool_call_response" ? { ...p, response: maskSecretKeys(p.response) } : p;

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

/** Structural equality of JSON-like values (message parts), without serializing them. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => sameJson(v, other[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The last chain computed per conversation, with the messages it was computed from. Ids are
 * pure functions of content, so this only saves work: a history that repeats the previous
 * call's messages reuses their nodes instead of serializing, masking and hashing the whole
 * history again (most of a call's cost). A forwarder's batches interleave many conversations,
 * so the chains are bounded by the memory they hold, not by a count: a count of 500 missed
 * every time once 800 conversations took turns.
 */
type Chain = { nodes: MessageNode[]; messages: ChatMessage[]; bytes: number };
const recentChains = new Map<string, Chain>();
let recentBytes = 0;
/** About 1,000 conversations of 20 tool-using calls (BENCHMARKS.md). */
const RECENT_CHAINS_BYTES = 64 * 1024 * 1024;
/**
 * What a chain keeps alive, roughly: each node's stored text and the parsed message it came from
 * (about a byte a character each for Latin-1 text) and 300 bytes of objects. Calibrated on the 800
 * conversations of `bench:ingest-http --batch 50`: 42 MB estimated, the heap grew by 44 MB. Text
 * beyond Latin-1 takes two bytes a character, so such chains can hold up to twice the bound.
 */
const chainBytes = (nodes: MessageNode[]) => nodes.reduce((n, node) => n + 300 + 2 * node.parts.length, 0);

/**
 * Nodes for `messages` appended after `parentId` (or at the root, seeded by the conversation),
 * and how many leading ones were reused from the conversation's previous chain. A node's parts
 * are stored masked (SPEC §5.3); its id hashes them before masking by shape, so ids stay those
 * of the content.
 */
export function chainNodes(conversationId: string, messages: ChatMessage[], parentId: string | null, startSeq: number): { nodes: MessageNode[]; reused: number } {
  const previous = parentId === null ? recentChains.get(conversationId) : undefined;
  const nodes: MessageNode[] = [];
  let parent = parentId;
  let reused = 0;
  let sameAsPrevious = previous !== undefined;
  messages.forEach((m, i) => {
    const cached = sameAsPrevious ? previous!.nodes[i] : undefined;
    sameAsPrevious = cached !== undefined && cached.role === m.role && sameJson(previous!.messages[i].parts, m.parts);
    if (sameAsPrevious) {
      nodes.push(cached!);
      reused++;
    } else {
      const { role, parts } = content(m);
      nodes.push({ id: nodeId(parent, conversationId, role, parts), parentId: parent, seq: startSeq + i, role, parts: redactText(parts) });
    }
    parent = nodes[i].id;
  });
  return { nodes, reused };
}

/** Records a call's whole chain (input then output) for the next call of its conversation. */
export function rememberChain(conversationId: string, input: ChatMessage[], inputNodes: MessageNode[], output: ChatMessage[], outputNodes: MessageNode[]): void {
  forget(conversationId);
  const nodes = [...inputNodes, ...outputNodes];
  const chain = { nodes, messages: [...input, ...output], bytes: chainBytes(nodes) };
  recentChains.set(conversationId, chain);
  recentBytes += chain.bytes;
  while (recentBytes > RECENT_CHAINS_BYTES && recentChains.size > 1) forget(recentChains.keys().next().value!);
}

function forget(conversationId: string): void {
  const chain = recentChains.get(conversationId);
  if (!chain) return;
  recentChains.delete(conversationId);
  recentBytes -= chain.bytes;
}
