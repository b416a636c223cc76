// A tool_result event (SPEC §2.3) fills in a tool call's result; what it leaves out (here its
// arguments) keeps what the call recorded, also when the event is replayed after the call — as
// an OTLP re-export does. On a real database (SQLite, or PostgreSQL with TEST_DATABASE_URL).
import { describe, expect, it } from "vitest";
import type { NormalizedCall } from "@/lib/domain/calls";
import { toolCallRowId } from "@/lib/ingest/keys";
import { ingestCalls } from "@/lib/ingest/storeCalls";
import { ingestEvents } from "@/lib/ingest/storeEvents";
import { useTestDb } from "../support/testDb";

const db = useTestDb("tool-event");

const at = 1_800_000_000_000_000_000n;
const event = { kind: "tool_result" as const, session_id: "s-tool", tool_call_id: "call_ls", name: "bash", success: false, error: "exit 2", at_ns: at + 2_000_000n };
const call: NormalizedCall = {
  call_id: "c-tool", session_id: "s-tool", conversation_id: "conv-tool", turn_id: "t-tool", start_ns: at, end_ns: at + 1_000_000n, status_code: 200,
  input_messages: [{ role: "user", parts: [{ type: "text", content: "what is here?" }] }],
  output_messages: [{ role: "assistant", parts: [{ type: "tool_call", id: "call_ls", name: "bash", arguments: { cmd: "ls" } }] }],
};

const row = () => db().toolCall.findUnique({ where: { id: toolCallRowId("s-tool", "call_ls") } });

describe("a tool_result event without arguments", () => {
  it("keeps the arguments its call recorded, before and after a replay", async () => {
    await ingestEvents(db(), [event]); // the event first (exports race), then the call
    await ingestCalls(db(), [call]);
    expect(await row()).toMatchObject({ arguments: '{"cmd":"ls"}', success: false, error: "exit 2" });
    await ingestEvents(db(), [event]); // a replay
    expect(await row()).toMatchObject({ arguments: '{"cmd":"ls"}', success: false, error: "exit 2" });
  });
});

describe("a tool call's row across the calls that show it", () => {
  const base = 1_900_000_000_000_000_000n;
  const ask = { role: "user" as const, parts: [{ type: "text" as const, content: "read a.ts" }] };
  const made = { role: "assistant" as const, parts: [{ type: "tool_call" as const, id: "call_read", name: "read_file", arguments: { path: "a.ts" } }] };
  const result = { role: "tool" as const, parts: [{ type: "tool_call_response" as const, id: "call_read", response: "export const a = 1;" }] };
  const answer = { role: "assistant" as const, parts: [{ type: "text" as const, content: "a is 1" }] };
  const callOf = (n: number, input: NormalizedCall["input_messages"], output: NormalizedCall["output_messages"]): NormalizedCall => ({
    call_id: `c-read-${n}`, session_id: "s-read", conversation_id: "conv-read", start_ns: base + BigInt(n) * 1_000_000_000n, end_ns: base + BigInt(n) * 1_000_000_000n + 1_000n, status_code: 200,
    input_messages: input, output_messages: output,
  });
  const readRow = () => db().toolCall.findUnique({ where: { id: toolCallRowId("s-read", "call_read") } });

  it("keeps the arguments of the call that made it when a later call brings the result", async () => {
    await ingestCalls(db(), [callOf(1, [ask], [made])]);
    expect(await readRow()).toMatchObject({ callId: "c-read-1", name: "read_file", arguments: '{"path":"a.ts"}', response: null });
    await ingestCalls(db(), [callOf(2, [ask, made, result], [answer])]);
    expect(await readRow()).toMatchObject({ callId: "c-read-1", name: "read_file", arguments: '{"path":"a.ts"}', response: "export const a = 1;", success: true });
  });

  it("keeps the arguments and the result a history brought when the call that made it comes after", async () => {
    const late = { session_id: "s-late", conversation_id: "conv-late" };
    await ingestCalls(db(), [{ ...callOf(2, [ask, made, result], [answer]), ...late, call_id: "c-late-2" }]);
    const row = () => db().toolCall.findUnique({ where: { id: toolCallRowId("s-late", "call_read") } });
    const judged = { name: "read_file", arguments: '{"path":"a.ts"}', response: "export const a = 1;", success: true };
    expect(await row()).toMatchObject({ ...judged, callId: null });
    await ingestCalls(db(), [{ ...callOf(1, [ask], [made]), ...late, call_id: "c-late-1" }]);
    expect(await row()).toMatchObject({ ...judged, callId: "c-late-1" });
  });
});
