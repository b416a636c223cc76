import { describe, expect, it } from "vitest";
import { detectDeadLoop, pushWindow, summarizeCall } from "@/lib/detect/deadLoop";
import { detectStateJson, parseDetectState } from "@/lib/ingest/detectState";

const readFile = (path: string) =>
  summarizeCall([{ role: "assistant", parts: [{ type: "text", content: "Reading it again" }, { type: "tool_call", id: "t", name: "read_file", arguments: JSON.stringify({ path }) }] }], 1200);

describe("a conversation's stored detection state", () => {
  it("reads back as written, each window entry an array, under a key the version before does not read", () => {
    const state = { window: [readFile("a.ts"), summarizeCall([], null)], counts: { rate_limit: 2 } };
    const json = detectStateJson(state);
    expect(JSON.parse(json)).toEqual({ compactWindow: [[state.window[0].tools, "Reading it again", 1200, false], [[], "", null, false]], counts: { rate_limit: 2 } });
    expect(parseDetectState(json)).toEqual(state);
  });

  it("reads a row written before (entries as objects with a call id and tool names), and detection goes on across it", () => {
    const former = repeat(4, (i) => ({ callId: `c${i}`, ...readFile("a.ts"), toolNames: ["read_file"] }));
    const state = parseDetectState(JSON.stringify({ window: former, counts: { tool_failure: 1 } }));
    expect(state.window[0]).toEqual(readFile("a.ts"));
    expect(state.counts).toEqual({ tool_failure: 1 });
    const window = pushWindow(state.window, readFile("a.ts"));
    expect(detectDeadLoop(window)).toMatchObject({ rule: "tool_sequence_repetition", repeat_count: 5, repeated_tools: ["read_file"] });
    expect(parseDetectState(detectStateJson({ ...state, window }))).toEqual({ ...state, window });
  });

  it("starts over from an unreadable or empty state", () => {
    expect(parseDetectState("{not json")).toEqual({ window: [], counts: {} });
    expect(parseDetectState("{}")).toEqual({ window: [], counts: {} });
  });
});

function repeat<T>(n: number, f: (i: number) => T): T[] {
  return Array.from({ length: n }, (_, i) => f(i));
}
