// Which message nodes a batch writes. Nodes are content-addressed (messages.ts), so a history
// mostly repeats nodes already stored, by earlier batches or by earlier calls of this one; each
// node is written once, with the conversation that first carried it.
import { existingIds } from "../db/multiRow";
import type { Sql } from "../db/sql";
import type { MessageNode } from "./messages";
import type { Prepared } from "./prepare";

export type MessageRow = MessageNode & { conversationId: string };

type Chains = Pick<Prepared, "input" | "output">;

/** How many trailing input nodes are probed first; a hit there settles the history. */
const PROBED_TAIL = 3;

/** The nodes probed first: each call's last few input nodes and its outputs. */
export const probedNodeIds = (prepared: Chains[]): string[] => prepared.flatMap((p) => [...p.input.slice(-PROBED_TAIL), ...p.output].map((n) => n.id));

/**
 * Which message nodes already exist. A node is stored only with its ancestors, so existence is
 * prefix-closed along a chain: probing the last few input nodes (and the outputs) usually
 * settles a whole history; only histories with no hit there are probed in full. `probed`: the
 * stored ones among `probedNodeIds` of these calls (or of more), when read already.
 */
export async function knownNodes(sql: Sql, prepared: Chains[], probed?: Set<string>): Promise<Set<string>> {
  const known = new Set(probed ?? (await existingIds(sql, "Message", probedNodeIds(prepared))));
  const batch = new Set<string>();
  const fallback: string[] = [];
  for (const p of prepared) {
    const tail = p.input.slice(-PROBED_TAIL);
    if (p.input.length > PROBED_TAIL && !tail.some((n) => known.has(n.id) || batch.has(n.id))) {
      fallback.push(...p.input.slice(0, -PROBED_TAIL).map((n) => n.id));
    }
    for (const n of p.input) batch.add(n.id);
    for (const n of p.output) batch.add(n.id);
  }
  for (const id of await existingIds(sql, "Message", fallback)) known.add(id);
  return known;
}

/**
 * Sets each call's `newInputStart`: the input nodes from there on appear for the first time
 * (neither stored nor carried by an earlier call of the batch). Calls must be in batch order.
 */
export function markNewSuffixes(prepared: (Chains & Pick<Prepared, "newInputStart">)[], known: Set<string>): void {
  const seen = new Set<string>();
  for (const p of prepared) {
    p.newInputStart = lastKnownIndex(p.input, known, seen) + 1;
    for (const n of p.input) seen.add(n.id);
    for (const n of p.output) seen.add(n.id);
  }
}

/** Index of the last node of `nodes` that exists (in the database or written by this batch). */
function lastKnownIndex(nodes: MessageNode[], known: Set<string>, written: Set<string>): number {
  for (let i = nodes.length - 1; i >= 0; i--) if (known.has(nodes[i].id) || written.has(nodes[i].id)) return i;
  return -1;
}

/** The message rows of a batch: each call's new history suffix and its unseen output, each node once. */
export class MessageStore {
  readonly rows: MessageRow[] = [];
  private readonly written = new Set<string>();

  constructor(private readonly known: Set<string>) {}

  /** Queues the nodes call `p` adds (after `markNewSuffixes`). */
  add(p: Pick<Prepared, "input" | "output" | "newInputStart" | "keys">): void {
    const conversationId = p.keys.conversationId;
    this.queue(conversationId, p.input.slice(p.newInputStart));
    this.queue(conversationId, p.output.slice(lastKnownIndex(p.output, this.known, this.written) + 1));
  }

  private queue(conversationId: string, nodes: MessageNode[]): void {
    for (const n of nodes) {
      if (this.written.has(n.id)) continue;
      this.written.add(n.id);
      this.rows.push({ ...n, conversationId }); // parts are masked already (prepareCall)
    }
  }
}
