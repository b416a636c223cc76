// Deterministic agent traffic for benchmarks: many conversations progressing side by side, each
// call's history = the previous call's history + its answer + a tool result, with realistic
// message sizes and a small share of provider failures.

const WORDS = (
  "the agent reads file config module test build error fix update function return value " +
  "request response user system tool call result output input stream token model retry " +
  "cache index query table route handler session conversation deploy server client log"
).split(" ");

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(rand: () => number, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  while (size < bytes) {
    const w = WORDS[Math.floor(rand() * WORDS.length)];
    out.push(w);
    size += w.length + 1;
  }
  return out.join(" ");
}

const SYSTEM = [{ type: "text", content: `You are a careful coding agent. ${"Follow the repository conventions and explain each change. ".repeat(20)}` }];

type Message = { role: string; parts: Record<string, unknown>[] };

/** `made`: calls answered so far; `retries`: failed calls so far (a retry is a new call, with its own id). */
type Conversation = { id: string; session: string; history: Message[]; made: number; retries: number; rand: () => number };

export type TrafficOptions = {
  conversationLength: number;
  totalCalls: number;
  batchSize: number;
  concurrentConversations: number;
  /** Prefix of every id (conversations, sessions, calls), so that several generators never collide. */
  prefix?: string;
  /** When the first call starts (ns); a fixed day in 2026 by default, so that runs store the same rows. */
  startNs?: bigint;
};

const BASE_NS = 1_767_268_800_000_000_000n;

function nextCall(c: Conversation, globalIndex: number, length: number, baseNs: bigint) {
  const r = c.rand;
  const k = c.made;
  const start = baseNs + BigInt(globalIndex) * 1_000_000n;
  const last = k === length - 1;
  const toolId = `${c.id}-t${k}`;
  const output: Message[] = last
    ? [{ role: "assistant", parts: [{ type: "text", content: text(r, 600) }] }]
    : [{
        role: "assistant",
        parts: [
          { type: "text", content: text(r, 120) },
          { type: "tool_call", id: toolId, name: r() < 0.5 ? "bash" : "read_file", arguments: { cmd: `cat src/${text(r, 20).replace(/ /g, "_")}.ts`, step: k } },
        ],
      }];
  const failed = r() < 0.02;
  const call = {
    call_id: failed ? `${c.id}-c${k}-failed${c.retries++}` : `${c.id}-c${k}`,
    session_id: c.session,
    conversation_id: c.id,
    agent_name: "bench-agent",
    pid: 1000 + (globalIndex % 7),
    host: "bench-host",
    provider: "openai",
    model: "qwen-plus",
    start_ns: start,
    end_ns: start + 900_000_000n + BigInt(Math.floor(r() * 1e9)),
    status_code: failed ? 429 : 200,
    error: failed ? "Rate limit reached for requests" : null,
    is_sse: true,
    sse_done: !failed,
    max_tokens: 4096,
    input_tokens: 1500 + k * 400,
    output_tokens: 180,
    finish_reasons: failed ? [] : [last ? "stop" : "tool_calls"],
    system_instructions: SYSTEM,
    input_messages: c.history.slice(),
    output_messages: failed ? [] : output,
  };
  if (!failed) {
    c.history.push(...output);
    if (!last) c.history.push({ role: "tool", parts: [{ type: "tool_call_response", id: toolId, response: text(r, 700) }] });
    c.made += 1;
  }
  return call;
}

/** Yields batches of normalized-call JSON objects, round-robin across active conversations. */
export function* generateTraffic(o: TrafficOptions): Generator<unknown[]> {
  const active: Conversation[] = [];
  let started = 0;
  let produced = 0;
  let batch: unknown[] = [];
  const open = () => {
    const rand = prng(started + 1);
    const prefix = o.prefix ?? "";
    const id = `${prefix}conv-${o.conversationLength}-${started}`;
    active.push({ id, session: `${prefix}sess-${Math.floor(started / 4)}`, history: [{ role: "user", parts: [{ type: "text", content: text(rand, 300) }] }], made: 0, retries: 0, rand });
    started += 1;
  };
  while (produced < o.totalCalls) {
    while (active.length < o.concurrentConversations) open();
    for (let i = 0; i < active.length && produced < o.totalCalls; i++) {
      const c = active[i];
      batch.push(nextCall(c, produced, o.conversationLength, o.startNs ?? BASE_NS));
      produced += 1;
      if (batch.length === o.batchSize) {
        yield batch;
        batch = [];
      }
    }
    for (let i = active.length - 1; i >= 0; i--) if (active[i].made >= o.conversationLength) active.splice(i, 1);
  }
  if (batch.length) yield batch;
}
