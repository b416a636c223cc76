import { describe, expect, it } from "vitest";
import { balanceSteps, unansweredCalls } from "@/lib/trajectory/balance";
import { groupSignatures, parseDetail, ratioOf, splitToolSignature } from "@/lib/trajectory/evidence";
import { clip, defaultWindowStart, displayArguments, pairToolCalls } from "@/lib/trajectory/messages";
import { markedCalls, nextMarkedCall } from "@/lib/trajectory/navigation";
import { afterCursor, callDurationMs, callEndNs, compareCalls, formatMs, formatOffset, toBigNs } from "@/lib/trajectory/ns";
import { worstSeverity } from "@/lib/trajectory/severity";
import { paintOrder, tickStep, timelineLayout, timeTicks } from "@/lib/trajectory/timeline";
import { buildTrajectory, conversationsShown, flattenRows, NO_CONVERSATION, newMessageStart, rowIndexOfCall, turnEndLabel } from "@/lib/trajectory/tree";
import type { CallSummary, ConversationInfo, Message } from "@/lib/trajectory/types";

const BASE = 1_760_000_000_000_000_000n; // 19 digits: beyond 2^53
const S = 1_000_000_000n;

function call(id: string, startS: number, durS: number | null, extra: Partial<CallSummary> = {}): CallSummary {
  const start = BASE + BigInt(startS) * S;
  return {
    call_id: id,
    conversation_id: "conv-a",
    turn_id: null,
    model: "m",
    start_ns: String(start),
    end_ns: durS === null ? null : String(start + BigInt(durS) * S),
    duration_ns: durS === null ? null : String(BigInt(durS) * S),
    status_code: 200,
    error: null,
    input_tokens: 10,
    output_tokens: 5,
    finish_reasons: ["stop"],
    input_message_count: 2,
    output_message_count: 1,
    interruptions: [],
    ...extra,
  };
}

const marker = (severity: string, type = "llm_error") => ({ interruption_id: `i-${type}-${severity}`, interruption_type: type, severity, status: "open" });

const conv = (id: string, turns: { id: string; end: string | null }[] = [], extra: Partial<ConversationInfo> = {}): ConversationInfo => ({
  conversation_id: id,
  first_seen_ns: String(BASE),
  last_seen_ns: String(BASE),
  call_count: 0,
  bricked_since_call_id: null,
  turns: turns.map((t) => ({ turn_id: t.id, first_seen_ns: String(BASE), last_seen_ns: String(BASE), call_count: 1, end_reason: t.end, ended_at_ns: null })),
  ...extra,
});

describe("ns helpers", () => {
  it("keeps 19-digit nanoseconds exact and orders calls by start then id", () => {
    expect(toBigNs("1760000000000000001")).toBe(1_760_000_000_000_000_001n);
    expect(toBigNs(42)).toBe(42n);
    expect(toBigNs("x")).toBeNull();
    const a = call("a", 0, 1, { start_ns: "1760000000000000001" });
    const b = call("b", 0, 1, { start_ns: "1760000000000000002" });
    expect(compareCalls(a, b)).toBe(-1);
    expect(compareCalls(b, { ...b, call_id: "a" })).toBe(1);
    expect(afterCursor(a)).toBe("1760000000000000001.a");
  });
  it("derives the end of a call from its end, else its duration, else its start", () => {
    expect(callEndNs(call("a", 0, 2))).toBe(BASE + 2n * S);
    expect(callEndNs({ start_ns: String(BASE), end_ns: null, duration_ns: 500_000_000 })).toBe(BASE + 500_000_000n);
    expect(callEndNs(call("a", 3, null))).toBe(BASE + 3n * S);
    expect(callDurationMs(call("a", 0, null))).toBeNull();
    expect(callDurationMs({ start_ns: String(BASE), end_ns: null, duration_ns: 1_500_000 })).toBe(1.5);
    // an end before the start (a clock that stepped back) is no end: no negative duration, no NaN bar
    expect(callDurationMs({ start_ns: String(BASE), end_ns: String(BASE - 500_000_000n), duration_ns: null })).toBeNull();
    expect(callDurationMs({ start_ns: String(BASE), end_ns: null, duration_ns: -5 })).toBeNull();
  });
  it("formats offsets", () => {
    expect(formatOffset(0)).toBe("+0ms");
    // a unit by the value as rounded for it: before, "+1000ms", "+60.0s", "+60m 00s"
    expect([formatOffset(999.6), formatOffset(59_999), formatOffset(3_599_700)]).toEqual(["+1s", "+1m 00s", "+1h 00m"]);
    expect([formatMs(999.6), formatMs(59_960), formatMs(850), formatMs(4_240)]).toEqual(["1.0 s", "1 min 00 s", "850 ms", "4.2 s"]);
    expect(formatOffset(1500)).toBe("+1.5s");
    expect(formatOffset(125_000)).toBe("+2m 05s");
    expect(formatOffset(3_720_000)).toBe("+1h 02m");
  });
});

describe("buildTrajectory", () => {
  it("groups conversations → turns → calls in time order, whatever order pages arrive in", () => {
    const calls = [
      call("b2", 30, 1, { conversation_id: "conv-b", turn_id: "tb" }),
      call("a1", 0, 2, { turn_id: "t1" }),
      call("b1", 5, 1, { conversation_id: "conv-b", turn_id: "tb" }),
      call("a2", 10, 2, { turn_id: "t1" }),
      call("a3", 20, 2, { turn_id: "t2" }),
      call("a1", 0, 2, { turn_id: "t1" }), // duplicate from an overlapping page
    ];
    const t = buildTrajectory([conv("conv-a", [{ id: "t1", end: "completed" }, { id: "t2", end: null }], { call_count: 4 }), conv("conv-b", [{ id: "tb", end: "failed" }])], calls);
    expect(t.conversations.map((c) => c.conversationId)).toEqual(["conv-a", "conv-b"]);
    expect(t.conversations[0].turns.map((x) => x.turnId)).toEqual(["t1", "t2"]);
    expect(t.conversations[0].turns[0].info?.end_reason).toBe("completed");
    expect(t.order.map((n) => n.call.call_id)).toEqual(["a1", "a2", "a3", "b1", "b2"]);
    expect(t.order.map((n) => n.index)).toEqual([0, 1, 2, 3, 4]);
    expect(t.conversations[0].loadedCalls).toBe(3);
    expect(t.conversations[0].totalCalls).toBe(4);
    expect(t.startNs).toBe(BASE);
    expect(t.endNs).toBe(BASE + 31n * S);
  });

  it("puts calls without a conversation under one group and runs of calls without a turn in segments", () => {
    const t = buildTrajectory([], [
      call("x1", 0, 1, { conversation_id: null }),
      call("a1", 1, 1),
      call("a2", 2, 1, { turn_id: "t" }),
      call("a3", 3, 1),
      call("a4", 4, 1),
    ]);
    expect(t.conversations.map((c) => c.key)).toEqual([NO_CONVERSATION, "conv-a"]);
    const turns = t.conversations[1].turns;
    expect(turns.map((x) => [x.turnId, x.calls.map((n) => n.call.call_id)])).toEqual([
      [null, ["a1"]],
      ["t", ["a2"]],
      [null, ["a3", "a4"]],
    ]);
  });

  it("carries markers up with the worst severity and knows where each call's new messages start", () => {
    const t = buildTrajectory([conv("conv-a", [], { bricked_since_call_id: "a2" })], [
      call("a1", 0, 1, { input_message_count: 2, output_message_count: 1 }),
      call("a2", 1, 1, { input_message_count: 4, output_message_count: 1, interruptions: [marker("medium"), marker("high", "state_machine_error")] }),
      call("a3", 2, 1, { input_message_count: 2, output_message_count: 1, interruptions: [marker("critical")] }),
    ]);
    const c = t.conversations[0];
    expect(c.markerCount).toBe(3);
    expect(c.severity).toBe("critical");
    expect(c.brickedSinceCallId).toBe("a2");
    expect(t.byId.get("a2")!.severity).toBe("high");
    expect(t.order.map((n) => n.newFrom)).toEqual([0, 3, 0]); // a3's history was rewritten
    expect(t.byId.get("a2")!.prevCallId).toBe("a1");
  });

  it("newMessageStart needs the previous call's counts", () => {
    expect(newMessageStart(null, call("a", 0, 1))).toBe(0);
    expect(newMessageStart(call("p", 0, 1, { input_message_count: 5, output_message_count: 1 }), call("a", 1, 1, { input_message_count: 7 }))).toBe(6);
  });

  it("is empty until the calls of its conversations load", () => {
    const t = buildTrajectory([conv("conv-a", [], { call_count: 3 })], []);
    expect(t.conversations).toEqual([]);
    expect(t.startNs).toBeNull();
    expect(timelineLayout(t).bars).toEqual([]);
  });

  it("shows only the conversation asked for, not the session's other conversations without calls", () => {
    const shown = conversationsShown([conv("conv-a", [], { call_count: 1 }), conv("conv-empty")], "conv-a");
    const t = buildTrajectory(shown, [call("a1", 0, 1, { conversation_id: "conv-a" })]);
    expect(t.conversations.map((c) => c.key)).toEqual(["conv-a"]);
    expect(conversationsShown([conv("x"), conv("y")], null)).toHaveLength(2);
  });

  it("shows a conversation and a turn that have no call, with the turn's end", () => {
    const calls = [call("a1", 0, 1, { conversation_id: "conv-a", turn_id: "t1" })];
    const withEmptyTurn = conv("conv-a", [{ id: "t1", end: "completed" }, { id: "t-failed", end: "failed" }], { call_count: 1 });
    withEmptyTurn.turns[1] = { ...withEmptyTurn.turns[1], call_count: 0, first_seen_ns: String(BASE + 5n * S) };
    const eventsOnly = conv("conv-events-only", [{ id: "t-dispatched", end: "dispatched" }], { first_seen_ns: String(BASE + 9n * S) });
    eventsOnly.turns[0] = { ...eventsOnly.turns[0], call_count: 0 };
    const t = buildTrajectory([withEmptyTurn, eventsOnly], calls);
    expect(t.conversations.map((c) => c.key)).toEqual(["conv-a", "conv-events-only"]);
    expect(t.conversations[0].turns.map((x) => [x.turnId, x.calls.length, x.info?.end_reason])).toEqual([["t1", 1, "completed"], ["t-failed", 0, "failed"]]);
    expect(flattenRows(t).map((r) => r.key)).toEqual(["c:conv-a", "t:conv-a::t1", "k:a1", "t:conv-a::t-failed", "c:conv-events-only", "t:conv-events-only::t-dispatched"]);
  });
});

describe("flattenRows", () => {
  const t = buildTrajectory([conv("conv-a", [{ id: "t1", end: "completed" }])], [
    call("a1", 0, 1, { turn_id: "t1" }),
    call("a2", 1, 1, { turn_id: "t1" }),
    call("a3", 2, 1),
    call("b1", 3, 1, { conversation_id: "conv-b" }),
  ]);
  it("emits conversation headers, turn headers (real turns only) and calls", () => {
    const rows = flattenRows(t);
    expect(rows.map((r) => r.kind)).toEqual(["conversation", "turn", "call", "call", "call", "conversation", "call"]);
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
    expect(rowIndexOfCall(rows, "b1")).toBe(6);
  });
  it("hides the calls of a collapsed conversation", () => {
    const rows = flattenRows(t, new Set(["conv-a"]));
    expect(rows.map((r) => r.kind)).toEqual(["conversation", "conversation", "call"]);
    expect(rows[0].kind === "conversation" && rows[0].collapsed).toBe(true);
    expect(rowIndexOfCall(rows, "a1")).toBe(-1);
  });
  it("labels turns without an end reason as open or unsettled", () => {
    const info = { turn_id: "t", first_seen_ns: String(BASE), last_seen_ns: String(BASE), call_count: 1, end_reason: null, ended_at_ns: null };
    expect(turnEndLabel(info, BASE + 60n * S, 30)).toBe("open");
    expect(turnEndLabel(info, BASE + 3600n * S, 30)).toBe("unsettled");
    expect(turnEndLabel(info, BASE + 3600n * S, 120)).toBe("open"); // the configured sweeps.stale_turn_minutes
    expect(turnEndLabel({ ...info, end_reason: "steered" }, BASE, 30)).toBe("steered");
    expect(turnEndLabel(null, BASE, 30)).toBe("open");
  });
});

describe("next interruption", () => {
  const t = buildTrajectory([], [
    call("b1", 1, 1, { conversation_id: "conv-b", interruptions: [marker("high")] }),
    call("a1", 0, 1),
    call("a2", 2, 1, { interruptions: [marker("low")] }),
    call("a3", 4, 1, { interruptions: [marker("critical")] }),
  ]);
  it("lists marked calls in display order (conversation by conversation)", () => {
    expect(t.order.map((n) => n.call.call_id)).toEqual(["a1", "a2", "a3", "b1"]);
    expect(markedCalls(t)).toEqual(["a2", "a3", "b1"]);
    expect(markedCalls(t, (m) => m.severity === "critical")).toEqual(["a3"]);
  });
  it("moves forward and backward, wrapping around", () => {
    expect(nextMarkedCall(t, null)).toEqual({ callId: "a2", position: 1, total: 3, wrapped: false });
    expect(nextMarkedCall(t, "a1")?.callId).toBe("a2");
    expect(nextMarkedCall(t, "a2")?.callId).toBe("a3");
    expect(nextMarkedCall(t, "a3")?.callId).toBe("b1");
    expect(nextMarkedCall(t, "b1")).toEqual({ callId: "a2", position: 1, total: 3, wrapped: true });
    expect(nextMarkedCall(t, "a3", -1)?.callId).toBe("a2");
    expect(nextMarkedCall(t, "a2", -1)).toMatchObject({ callId: "b1", wrapped: true });
    expect(nextMarkedCall(t, null, -1)?.callId).toBe("b1");
    expect(nextMarkedCall(t, "not-loaded")?.callId).toBe("a2");
  });
  it("returns null when nothing is marked", () => {
    expect(nextMarkedCall(buildTrajectory([], [call("a", 0, 1)]), null)).toBeNull();
  });
});

describe("timelineLayout", () => {
  it("positions bars by start and end on one lane per conversation", () => {
    const t = buildTrajectory([], [
      call("a1", 0, 10),
      call("a2", 50, 50, { status_code: 500, error: "boom", interruptions: [marker("high")] }),
      call("b1", 20, null, { conversation_id: "conv-b-0123456789abcdef" }),
    ]);
    const l = timelineLayout(t);
    expect(l.spanMs).toBe(100_000);
    expect(l.lanes.map((x) => x.label)).toEqual(["conv-a", "conv-b-012…"]);
    const bar = (id: string) => l.bars.find((b) => b.callId === id)!;
    expect(bar("a1")).toMatchObject({ lane: 0, left: 0, width: 0.1, failed: false, severity: null, open: false });
    expect(bar("a2")).toMatchObject({ lane: 0, left: 0.5, width: 0.5, failed: true, severity: "high" });
    expect(bar("b1")).toMatchObject({ lane: 1, left: 0.2, width: 0, open: true, durationMs: null });
    expect(l.ticks[0]).toEqual({ at: 0, ms: 0, label: "+0ms" });
    expect(l.ticks.at(-1)!.at).toBeLessThanOrEqual(1);
  });
  it("draws marked calls last, the most severe on top, then failed ones, over the ordinary ones they overlap", () => {
    const t = buildTrajectory([], [
      call("critical", 0, 1, { interruptions: [marker("critical")] }),
      call("long-ok", 0, 10),
      call("failed", 2, 3, { status_code: 500, error: "boom" }),
      call("low", 4, 5, { interruptions: [marker("low")] }),
      call("ok", 6, 7),
    ]);
    expect(paintOrder(timelineLayout(t).bars).map((b) => b.callId)).toEqual(["long-ok", "ok", "failed", "low", "critical"]);
  });
  it("chooses nice tick steps", () => {
    expect(tickStep(60_000)).toBe(10_000);
    expect(tickStep(3_600_000)).toBe(600_000);
    expect(timeTicks(1000, 4).map((x) => x.ms)).toEqual([0, 500, 1000]);
  });
});

describe("balance", () => {
  const msgs: Message[] = [
    { role: "user", parts: [{ type: "text", content: "go" }] },
    { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "ls", arguments: {} }, { type: "tool_call", id: "c2", name: "ls", arguments: {} }] },
    { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "a" }] },
    { role: "tool", parts: [{ type: "tool_call_response", id: "c2", response: "b" }] },
    { role: "assistant", parts: [{ type: "tool_call", id: "c3", name: "fetch", arguments: {} }] },
    { role: "user", parts: [{ type: "text", content: "hello?" }] },
  ];
  it("keeps the running balance and marks safe cut points (> 0 back to 0)", () => {
    const steps = balanceSteps(msgs);
    expect(steps.map((s) => s.balance)).toEqual([0, 2, 1, 0, 1, 1]);
    expect(steps.filter((s) => s.safeCut).map((s) => s.index)).toEqual([3]);
    expect(steps[1].opened).toEqual(["c1", "c2"]);
    expect(steps[2].closed).toEqual(["c1"]);
    expect(balanceSteps(msgs.slice(2), 2).map((s) => s.balance)).toEqual([1, 0, 1, 1]);
  });
  it("finds unanswered calls", () => {
    expect(unansweredCalls(msgs)).toEqual(["c3"]);
  });
});

describe("pairToolCalls", () => {
  const msgs: Message[] = [
    { role: "assistant", parts: [{ type: "text", content: "x" }, { type: "tool_call", id: "c1", name: "ls", arguments: "{\"a\":1}" }, { type: "tool_call", id: "c2", name: "cat", arguments: {} }] },
    { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "files", is_error: false }, { type: "tool_call_response", id: "zz", response: "orphan" }] },
    { role: "assistant", parts: [{ type: "tool_call", id: "c3", name: "rm", arguments: {} }] },
  ];
  it("pairs calls with later responses, falls back to recorded results and leaves orphans alone", () => {
    const p = pairToolCalls(msgs, [
      { tool_call_id: "c3", name: "rm", arguments: null, response: null, success: false, error: "EPERM", duration_ns: null },
      { tool_call_id: "c2", name: "cat", arguments: null, response: null, success: null, error: null, duration_ns: null },
    ]);
    expect(p.responseOf.get("c1")).toMatchObject({ source: "history", messageIndex: 1, partIndex: 0, response: "files", isError: false });
    expect(p.responseOf.has("c2")).toBe(false);
    expect(p.responseOf.get("c3")).toMatchObject({ source: "record", isError: true, error: "EPERM" });
    expect(p.callOfResponse.get("1:0")).toBe(0);
    expect(p.callOfResponse.has("1:1")).toBe(false);
    expect(p.callMessage.get("c3")).toBe(2);
  });
  it("windows long histories and formats arguments", () => {
    expect(defaultWindowStart(20, 18)).toBe(17);
    expect(defaultWindowStart(20, 2)).toBe(8);
    expect(defaultWindowStart(2, 0)).toBe(0);
    expect(displayArguments("{\"a\":1}")).toBe('{\n  "a": 1\n}');
    expect(displayArguments("not json")).toBe("not json");
    expect(clip("abcdef", 4)).toEqual({ text: "abcd", hidden: 2 });
  });
});

describe("evidence helpers", () => {
  it("parses detail strings and tool signatures", () => {
    expect(parseDetail('{"ratio":0.97}')).toEqual({ ratio: 0.97 });
    expect(parseDetail("[1]")).toBeNull();
    expect(parseDetail("{oops")).toBeNull();
    expect(ratioOf(970, 1000)).toBeCloseTo(0.97);
    expect(ratioOf(1, 0)).toBeNull();
    expect(splitToolSignature("read_file#ab12")).toEqual({ name: "read_file", fingerprint: "ab12" });
    expect(splitToolSignature("bash")).toEqual({ name: "bash", fingerprint: null });
    expect(groupSignatures(["a#1", "a#1", "b#2"])).toEqual([
      { signature: "a#1", name: "a", fingerprint: "1", count: 2 },
      { signature: "b#2", name: "b", fingerprint: "2", count: 1 },
    ]);
    expect(worstSeverity(["low", "high", "medium"])).toBe("high");
    expect(worstSeverity([])).toBeNull();
  });
});
