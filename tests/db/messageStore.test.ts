// Which message nodes a call batch writes (lib/ingest/messageStore.ts): each call's new history
// suffix and its unseen output, each node once — against what earlier calls of the batch carried
// and, on a real database (SQLite, or PostgreSQL with TEST_DATABASE_URL), what is stored.
import { describe, expect, it } from "vitest";
import { transaction } from "@/lib/db/sql";
import { knownNodes, markNewSuffixes, MessageStore } from "@/lib/ingest/messageStore";
import { prepareCall, type Prepared } from "@/lib/ingest/prepare";
import { ingestCalls } from "@/lib/ingest/storeCalls";
import type { ChatMessage, NormalizedCall } from "@/lib/domain/calls";
import { useTestDb } from "../support/testDb";

const user = (text: string): ChatMessage => ({ role: "user", parts: [{ type: "text", content: text }] });
const answer = (text: string): ChatMessage => ({ role: "assistant", parts: [{ type: "text", content: text }] });

let seq = 0;
/** A call of conversation `conversation` whose history is `input` and answer `output`. */
function call(conversation: string, input: ChatMessage[], output: ChatMessage[]): NormalizedCall {
  seq += 1;
  return {
    call_id: `ms-${conversation}-${seq}`, session_id: "ms-session", conversation_id: conversation, turn_id: `${conversation}-t`,
    start_ns: 1_800_000_000_000_000_000n + BigInt(seq) * 1_000_000n, status_code: 200, input_messages: input, output_messages: output,
  };
}

/** The three calls of a chat: each history is the previous one plus its answer and a new question. */
function chat(conversation: string): NormalizedCall[] {
  const [u1, a1, u2, a2, u3, a3] = [user("u1"), answer("a1"), user("u2"), answer("a2"), user("u3"), answer("a3")];
  return [call(conversation, [u1], [a1]), call(conversation, [u1, a1, u2], [a2]), call(conversation, [u1, a1, u2, a2, u3], [a3])];
}

describe("markNewSuffixes and MessageStore (one batch, nothing stored)", () => {
  it("writes each message of a chat once, with its conversation", () => {
    const prepared = chat("c-fresh").map(prepareCall);
    markNewSuffixes(prepared, new Set());
    expect(prepared.map((p) => p.newInputStart)).toEqual([0, 2, 4]);

    const store = new MessageStore(new Set());
    for (const p of prepared) store.add(p);
    expect(store.rows.map((r) => JSON.parse(r.parts)[0].content)).toEqual(["u1", "a1", "u2", "a2", "u3", "a3"]);
    expect(new Set(store.rows.map((r) => r.id)).size).toBe(6);
    expect(store.rows.every((r) => r.conversationId === "c-fresh")).toBe(true);
    // a chain: each node's parent is the one before it
    expect(store.rows.map((r) => r.parentId)).toEqual([null, ...store.rows.slice(0, -1).map((r) => r.id)]);
  });

  it("adds nothing for a retried call whose history and answer the batch already carries", () => {
    const [first, second] = chat("c-retry");
    const retry = { ...second, call_id: `${second.call_id}-retry` };
    const prepared = [first, second, retry].map(prepareCall);
    markNewSuffixes(prepared, new Set());
    expect(prepared[2].newInputStart).toBe(3);

    const store = new MessageStore(new Set());
    const sizes = prepared.map((p) => (store.add(p), store.rows.length));
    expect(sizes).toEqual([2, 4, 4]);
  });

  it("starts after the last known node of a history", () => {
    const prepared = chat("c-known").map(prepareCall);
    const last = prepared[2];
    markNewSuffixes([last], new Set([last.input[3].id])); // u1 a1 u2 a2 stored, u3 new
    expect(last.newInputStart).toBe(4);
    const store = new MessageStore(new Set([...last.input.slice(0, 4).map((n) => n.id)]));
    store.add(last);
    expect(store.rows.map((r) => JSON.parse(r.parts)[0].content)).toEqual(["u3", "a3"]);
  });
});

describe("knownNodes (stored messages)", () => {
  const db = useTestDb("msgstore");

  const known = (prepared: Prepared[]) => transaction(db(), (sql) => knownNodes(sql, prepared));

  it("finds a stored history from its tail and leaves the new messages out", async () => {
    const [first, second, third] = chat("c-db-tail");
    await ingestCalls(db(), [first, second]);
    const prepared = [prepareCall(third)];
    const found = await known(prepared);
    const [p] = prepared;
    // the tail probe (u2 a2 u3) hits, so the prefix before it is not probed
    expect(found.has(p.input[2].id) && found.has(p.input[3].id)).toBe(true);
    expect(found.has(p.input[0].id)).toBe(false);
    expect(found.has(p.input[4].id) || found.has(p.output[0].id)).toBe(false);
    markNewSuffixes(prepared, found);
    expect(p.newInputStart).toBe(4);
  });

  it("probes a whole history when its last messages are all new", async () => {
    const [first] = chat("c-db-full");
    await ingestCalls(db(), [first]);
    const later = call("c-db-full", [user("u1"), answer("a1"), user("x"), answer("y"), user("z")], [answer("w")]);
    const prepared = [prepareCall(later)];
    const found = await known(prepared);
    expect([...found].sort()).toEqual([prepared[0].input[0].id, prepared[0].input[1].id].sort());
    markNewSuffixes(prepared, found);
    expect(prepared[0].newInputStart).toBe(2);
  });

  it("knows nothing of a conversation never stored", async () => {
    expect((await known(chat("c-db-none").map(prepareCall))).size).toBe(0);
  });
});

describe("prepareCall's memory of each conversation's previous chain", () => {
  it("reuses the previous call's messages in each of 2,000 conversations that take turns", () => {
    // like a forwarder's batches: every conversation's first call, then every second call
    const chats = Array.from({ length: 2000 }, (_, i) => chat(`turns-${i}`));
    for (const [first] of chats) expect(prepareCall(first).reused).toBe(0);
    const reused = chats.map(([, second]) => prepareCall(second).reused);
    expect(reused.filter((n) => n === 2)).toHaveLength(2000);
  });

  it("lets go of the oldest conversations once the chains pass their memory bound", () => {
    const big = (tag: string) => user(`${tag} ${"x".repeat(200_000)}`);
    const chats = Array.from({ length: 200 }, (_, i) => [big(`q${i}`), answer(`a${i}`)] as const);
    chats.forEach(([q, a], i) => prepareCall(call(`big-${i}`, [q], [a])));
    // 40 million characters, ~80 MB by the chains' estimate: the first conversations' chains are gone, the last ones' kept
    expect(prepareCall(call("big-0", [...chats[0], user("more")], [answer("ok")])).reused).toBe(0);
    expect(prepareCall(call("big-199", [...chats[199], user("more")], [answer("ok")])).reused).toBe(2);
  }, 30_000);
});
