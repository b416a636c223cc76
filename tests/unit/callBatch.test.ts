// Call batches read from bytes reuse the messages a conversation's previous call sent (compared,
// not parsed again). The result must be exactly the whole parse's, faults and all, whatever the
// sender writes around or inside the history.
import { beforeEach, describe, expect, it } from "vitest";
import { forgetHistories, historyMemory, parseCallBatch } from "@/lib/api/callBatch";
import { parseJsonBytes } from "@/lib/api/body";
import { parseBatch } from "@/lib/api/validation";
import { callSchema } from "@/lib/ingest/schema";

type Message = { role: string; parts: Record<string, unknown>[] };

const user: Message = { role: "user", parts: [{ type: "text", content: 'fix the "build", then ] } [ { \\ naïve 😀' }] };
const answer = (k: number): Message => ({
  role: "assistant",
  parts: [
    { type: "text", content: `step ${k}` },
    { type: "tool_call", id: `t${k}`, name: "bash", arguments: { cmd: `ls ${k}`, deadline_ns: "@1767268800000000123" } },
  ],
});
const result = (k: number): Message => ({ role: "tool", parts: [{ type: "tool_call_response", id: `t${k}`, response: `out ${k}` }] });

/** The k-th call of conversation `conv`: its history is the previous call's plus its answer and a tool result. */
function call(conv: string, k: number, extra: Record<string, unknown> = {}) {
  const input: Message[] = [user];
  for (let i = 0; i < k; i++) input.push(answer(i), result(i));
  return { call_id: `${conv}-${k}`, conversation_id: conv, start_ns: "@1767268800000000001", input_messages: input, output_messages: [answer(k)], ...extra };
}

/** JSON with `"@123"` strings written as bare integers (exact beyond 2^53), optionally indented. */
const json = (value: unknown, space?: number) => JSON.stringify(value, null, space).replace(/"@(\d+)"/g, "$1");
const bytes = (value: unknown, space?: number) => Buffer.from(json(value, space));

const whole = (body: Buffer) => parseBatch(callSchema, parseJsonBytes(body));
const errorOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return null;
};

beforeEach(() => forgetHistories());

describe("parseCallBatch", () => {
  it("gives the whole parse's calls, reusing the previous call's validated messages", () => {
    const first = parseCallBatch(bytes([call("a", 3), call("b", 1)]));
    const body = bytes([call("a", 4), call("b", 2)]);
    const second = parseCallBatch(body);
    expect(second).toEqual(whole(body));
    // the first seven messages of a's history are the very objects read for its previous call
    for (let i = 0; i < 7; i++) expect(second[0].input_messages[i]).toBe(first[0].input_messages[i]);
    expect(second[0].input_messages[7]).not.toBe(first[0].input_messages[6]);
    expect(second[1].input_messages[2]).toBe(first[1].input_messages[2]);
    // exact nanoseconds inside reused messages
    expect((second[0].input_messages[1].parts[1] as { arguments: { deadline_ns: string } }).arguments.deadline_ns).toBe("1767268800000000123");
    expect(second[0].start_ns).toBe(1767268800000000001n);
  });

  it("reuses across a single-object body, a batch, spaces and newlines, and within one batch", () => {
    parseCallBatch(bytes(call("a", 2)));
    const pretty = bytes([call("a", 3), call("a", 4)], 2);
    const read = parseCallBatch(pretty);
    expect(read).toEqual(whole(pretty));
    expect(read[1].input_messages[6]).toBe(read[0].input_messages[6]);
  });

  it("reuses only the leading messages that are the same bytes: an edited history is read again from the edit", () => {
    const before = parseCallBatch(bytes(call("a", 3)))[0];
    const edited = call("a", 4);
    edited.input_messages[2] = { role: "tool", parts: [{ type: "tool_call_response", id: "t0", response: "edited" }] };
    const body = bytes(edited);
    const read = parseCallBatch(body);
    expect(read).toEqual(whole(body));
    expect(read[0].input_messages[1]).toBe(before.input_messages[1]);
    expect(read[0].input_messages[2]).not.toBe(before.input_messages[2]);
    expect(read[0].input_messages[3]).toEqual(before.input_messages[3]);
  });

  it("reads what the matched key does not own as the whole parse does: duplicate, escaped and nested keys", () => {
    parseCallBatch(bytes(call("a", 2)));
    const text = json(call("a", 3));
    const cases = [
      // a later duplicate wins in JSON.parse
      text.replace(/}$/, `,"input_messages":[${json(user)}]}`),
      text.replace(/}$/, `,"input\\u005fmessages":[]}`),
      // the first "input_messages" the bytes show is nested in another field
      text.replace(/^{/, `{"meta":{"input_messages":${json(call("a", 2).input_messages)}},`),
    ];
    for (const variant of cases) {
      const body = Buffer.from(variant);
      expect(parseCallBatch(body)).toEqual(whole(body));
    }
    expect(parseCallBatch(Buffer.from(cases[0]))[0].input_messages).toHaveLength(1);
  });

  it("answers a faulty batch with the whole parse's error, wherever the fault is", () => {
    parseCallBatch(bytes([call("a", 2), call("b", 2)]));
    const a = json(call("a", 3));
    const b = call("b", 3);
    const text = `[${a},${json(b)}]`;
    b.input_messages[b.input_messages.length - 1].role = "";
    const endOfHistory = a.indexOf(',"output_messages"') - 1;
    const faults = [
      `[${a},${json(b)}]`, // in the fresh part of b's history
      text.replace('"call_id":"b-3"', '"call_id":""'),
      `[${a.slice(0, endOfHistory)},${a.slice(endOfHistory)}]`, // a comma after the reused messages
      `${text.slice(0, -1)},{"call_id":"c","start_ns":1,"input_messages":[{"sightdesk-reused-00":0}]}]`, // a guessed placeholder
      text.slice(0, -2),
    ];
    for (const fault of faults) {
      const body = Buffer.from(fault);
      const expected = errorOf(() => whole(body));
      expect(expected, fault.slice(0, 80)).not.toBeNull();
      expect(errorOf(() => parseCallBatch(body))).toBe(expected);
    }
  });

  it("reads a body of calls that carry no history, and refuses an empty batch as before", () => {
    const body = bytes([{ call_id: "x", start_ns: 5 }, { call_id: "y", start_ns: 6, input_messages: [] }]);
    expect(parseCallBatch(body)).toEqual(whole(body));
    expect(errorOf(() => parseCallBatch(Buffer.from("[]")))).toBe(errorOf(() => whole(Buffer.from("[]"))));
    expect(errorOf(() => parseCallBatch(Buffer.from("[]")))).toMatch(/empty/);
  });

  it("counts at least what its histories hold, and keeps under its limit", () => {
    const spaces = " ".repeat(1024 * 1024);
    const huge = { role: "tool", parts: [{ type: "tool_call_response", id: "t0", response: "x".repeat(1024 * 1024) }] };
    const nested = { role: "tool", parts: [{ type: "tool_call_response", id: "t1", response: Array(100_000).fill([]) }] };
    const within = () => {
      const { counted, buffers, elements } = historyMemory();
      expect(buffers).toBe(elements); // no byte kept that no element owns
      expect(elements).toBeLessThanOrEqual(counted);
    };
    // white space between elements is not kept
    parseCallBatch(Buffer.from(`{"call_id":"w","conversation_id":"w","start_ns":1,"input_messages":[${json(user)},${spaces}${json(user)}]}`));
    within();
    // a history that reuses part of another does not keep the other's copy alive
    parseCallBatch(bytes({ ...call("p", 0), input_messages: [user, huge] }));
    for (let j = 0; j < 6; j++) parseCallBatch(bytes({ ...call("p", 0), call_id: `p${j}`, input_messages: [user, result(j)] }));
    within();
    // objects and arrays are counted, not only bytes
    const before = historyMemory().counted;
    parseCallBatch(bytes({ ...call("n", 0), input_messages: [user, nested] }));
    expect(historyMemory().counted - before).toBeGreaterThan(64 * 100_000);
    // a history counts what it keeps besides its bytes: many tiny ones count at least 1 KB each
    const tiny = historyMemory().counted;
    for (let c = 0; c < 100; c++) parseCallBatch(bytes({ ...call(`tiny${c}`, 0), input_messages: [{ role: "u", parts: [] }] }));
    expect(historyMemory().counted - tiny).toBeGreaterThan(100 * 1024);
    // many large histories: the least recently used go
    for (let c = 0; c < 60; c++) parseCallBatch(bytes({ ...call(`big${c}`, 0), input_messages: [user, huge] }));
    within();
    expect(historyMemory().counted).toBeLessThanOrEqual(historyMemory().limit);
    expect(historyMemory().counted).toBeGreaterThan(historyMemory().limit / 2);
    // and one larger than an eighth of the bound is not kept at all, so it cannot empty the rest
    const full = historyMemory().counted;
    parseCallBatch(bytes({ ...call("giant", 0), input_messages: [user, { role: "tool", parts: [{ type: "tool_call_response", id: "g", response: "y".repeat(8 * 1024 * 1024) }] }] }));
    expect(historyMemory().counted).toBe(full);
  });
});
