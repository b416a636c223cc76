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
