import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/domain/calls";
import { imbalanceOf, keptImbalance, toolBalance } from "@/lib/detect/toolBalance";

const text = (role: string, content: string): ChatMessage => ({ role, parts: [{ type: "text", content }] });
const calls = (...ids: string[]): ChatMessage => ({
  role: "assistant",
  parts: ids.map((id) => ({ type: "tool_call" as const, id, name: "bash", arguments: { command: "ls" } })),
});
const result = (id: string, role = "tool"): ChatMessage => ({
  role,
  parts: [{ type: "tool_call_response", id, response: "ok" }],
});

describe("toolBalance", () => {
  it("accepts balanced OpenAI parallel tool calls", () => {
    const b = toolBalance([
      text("system", "be helpful"),
      text("user", "list files"),
      calls("call_a", "call_b"),
      result("call_a"),
      result("call_b"),
      text("assistant", "done"),
    ]);
    expect(b).toEqual({
      dangling: [],
      orphan: [],
      duplicate: [],
      series: [0, 0, 2, 1, 0, 0],
      safeCuts: [4],
      balanced: true,
    });
  });

  it("accepts a server tool's result in the assistant message of its call (Anthropic's web search), beside a client tool call", () => {
    // before: the result was applied before its call, an orphan, and the call then dangling — every later call bricked
    const b = toolBalance([
      text("user", "what is the weather in Oslo, and list the files"),
      {
        role: "assistant",
        parts: [
          { type: "tool_call", id: "srvtoolu_1", name: "web_search", arguments: { query: "Oslo weather" } },
          { type: "tool_call_response", id: "srvtoolu_1", response: "rain" },
          { type: "text", content: "It rains in Oslo." },
          { type: "tool_call", id: "toolu_2", name: "bash", arguments: { command: "ls" } },
        ],
      },
      result("toolu_2", "user"),
      text("user", "thanks"),
    ]);
    expect(b).toMatchObject({ dangling: [], orphan: [], duplicate: [], balanced: true, series: [0, 1, 0, 0] });
    // the client tool call left unanswered still dangles
    expect(toolBalance([text("user", "go"), { role: "assistant", parts: [{ type: "tool_call", id: "srvtoolu_1", name: "web_search", arguments: {} }, { type: "tool_call_response", id: "srvtoolu_1", response: "x" }, { type: "tool_call", id: "toolu_2", name: "bash", arguments: {} }] }, text("user", "and?")]).dangling).toEqual(["toolu_2"]);
  });

  it("accepts an Anthropic-style history (results inside user messages, text beside tool_use)", () => {
    const b = toolBalance([
      text("user", "fix the bug"),
      {
        role: "assistant",
        parts: [
          { type: "text", content: "Let me look." },
          { type: "tool_call", id: "toolu_1", name: "read", arguments: { path: "a.ts" } },
        ],
      },
      {
        role: "user",
        parts: [
          { type: "tool_call_response", id: "toolu_1", response: [{ type: "text", text: "code" }] },
          { type: "text", content: "also check b.ts" },
        ],
      },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "thinking" },
          { type: "tool_call", id: "toolu_2", name: "read", arguments: { path: "b.ts" } },
        ],
      },
      result("toolu_2", "user"),
      text("assistant", "fixed"),
    ]);
    expect(b.balanced).toBe(true);
    expect(b.series).toEqual([0, 1, 0, 1, 0, 0]);
    expect(b.safeCuts).toEqual([2, 4]);
  });

  it("reports a tool call left without a response at the end of history as dangling", () => {
    const b = toolBalance([text("user", "go"), calls("call_x")]);
    expect(b.dangling).toEqual(["call_x"]);
    expect(b.balanced).toBe(false);
    expect(b.safeCuts).toEqual([]);
  });

  it("reports a call as dangling when a user text turn comes before its response", () => {
    const b = toolBalance([
      text("user", "go"),
      calls("call_x"),
      text("user", "are you there?"),
      result("call_x"),
      text("assistant", "yes"),
    ]);
    // The late response keeps the id dangling; it is not an orphan too.
    expect(b.dangling).toEqual(["call_x"]);
    expect(b.orphan).toEqual([]);
    expect(b.balanced).toBe(false);
  });

  it("does not flush pending calls on a reasoning-only assistant message", () => {
    const b = toolBalance([
      calls("call_x"),
      { role: "assistant", parts: [{ type: "reasoning", content: "hm" }] },
      result("call_x"),
    ]);
    expect(b.balanced).toBe(true);
  });

  it("reports a response with no earlier call as orphan", () => {
    const b = toolBalance([text("user", "go"), result("call_ghost"), text("assistant", "ok")]);
    expect(b.orphan).toEqual(["call_ghost"]);
    expect(b.dangling).toEqual([]);
    expect(b.series).toEqual([0, -1, -1]);
    expect(b.balanced).toBe(false);
  });

  it("reports an id called twice as duplicate, once", () => {
    const b = toolBalance([
      calls("call_a"),
      result("call_a"),
      calls("call_a"),
      result("call_a"),
      calls("call_a"),
      result("call_a"),
    ]);
    expect(b.duplicate).toEqual(["call_a"]);
    expect(b.dangling).toEqual([]);
    expect(b.orphan).toEqual([]);
    expect(b.balanced).toBe(false);
  });

  it("lists ids once each in order of discovery", () => {
    const b = toolBalance([calls("c2", "c1"), text("user", "hey"), calls("c3")]);
    expect(b.dangling).toEqual(["c2", "c1", "c3"]);
  });

  it("finds the safe cut points of a turn with two rounds of tool calls", () => {
    const b = toolBalance([
      text("user", "refactor"),
      calls("a", "b"),
      result("a"),
      result("b"),
      calls("c"),
      result("c"),
      text("assistant", "refactored"),
    ]);
    expect(b.series).toEqual([0, 2, 1, 0, 1, 0, 0]);
    expect(b.safeCuts).toEqual([3, 5]);
    expect(b.balanced).toBe(true);
  });

  it("handles an empty history", () => {
    expect(toolBalance([])).toEqual({
      dangling: [],
      orphan: [],
      duplicate: [],
      series: [],
      safeCuts: [],
      balanced: true,
    });
  });
});

describe("imbalanceOf (what a call and its finding keep)", () => {
  it("is null for a balanced history, else the first 20 ids of each kind, each at most 512 characters, and the counts", () => {
    expect(imbalanceOf(toolBalance([]))).toBeNull();
    const long = "L".repeat(2_000);
    const history: ChatMessage[] = [
      { role: "user", parts: [{ type: "text", content: "go" }] },
      { role: "assistant", parts: [long, ...Array.from({ length: 30 }, (_, i) => `c${i}`)].map((id) => ({ type: "tool_call" as const, id, name: "bash", arguments: {} })) },
      { role: "user", parts: [{ type: "text", content: "and?" }] },
    ];
    const kept = imbalanceOf(toolBalance(history))!;
    expect(kept.dangling).toHaveLength(20);
    expect(kept.dangling[0]).toBe("L".repeat(512));
    expect(kept).toMatchObject({ orphan: [], duplicate: [], dangling_count: 31, orphan_count: 0, duplicate_count: 0 });
    expect(kept).not.toHaveProperty("series");
  });
});

describe("keptImbalance (a stored imbalance as it is sent)", () => {
  it("trims a row stored before the counts (every id, the series) to what imbalanceOf keeps", () => {
    const old = { dangling: Array.from({ length: 50 }, (_, i) => `d${i}`), orphan: ["o"], duplicate: [], series: [1, 2, 3], safeCuts: [], balanced: false };
    expect(keptImbalance(old)).toEqual({ dangling: old.dangling.slice(0, 20), orphan: ["o"], duplicate: [], dangling_count: 50, orphan_count: 1, duplicate_count: 0 });
    const kept = imbalanceOf({ ...old, series: [], balanced: false })!;
    expect(keptImbalance(kept)).toEqual(kept);
  });
});
