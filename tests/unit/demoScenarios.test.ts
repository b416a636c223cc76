// The demo generator: its payloads pass the ingest schemas, it is deterministic, and its
// histories behave like a real agent's (growing call by call, tool calls paired).
import { describe, expect, it } from "vitest";
import { DEMO_ANTHROPIC_KEY, DEMO_SPAN_MINUTES, defaultDemoBase, generateDemo, type CallPayload } from "@/lib/demo/scenarios";
import { toolBalance } from "@/lib/detect/toolBalance";
import { callSchema, eventSchema, httpExchangeSchema } from "@/lib/ingest/schema";

const BASE = 1767268800000000000n;
const MINUTE = 60_000_000_000n;
const data = generateDemo(BASE);

describe("demo payloads", () => {
  it("validate against the ingest schemas", () => {
    const failures: string[] = [];
    data.calls.forEach((c, i) => {
      const r = callSchema.safeParse(c);
      if (!r.success) failures.push(`call ${i}: ${JSON.stringify(r.error.issues[0])}`);
    });
    data.exchanges.forEach((x, i) => {
      const r = httpExchangeSchema.safeParse(x);
      if (!r.success) failures.push(`exchange ${i}: ${JSON.stringify(r.error.issues[0])}`);
    });
    data.events.forEach((e, i) => {
      const r = eventSchema.safeParse(e);
      if (!r.success) failures.push(`event ${i}: ${JSON.stringify(r.error.issues[0])}`);
    });
    expect(failures).toEqual([]);
  });

  it("are JSON: nanoseconds as digit strings, nothing that JSON would lose", () => {
    const json = JSON.parse(JSON.stringify(data)) as unknown;
    expect(json).toEqual(data);
    expect(data.calls.every((c) => /^\d{19}$/.test(c.start_ns))).toBe(true);
  });

  it("are deterministic for a base time", () => {
    expect(generateDemo(BASE)).toEqual(data);
    const other = generateDemo(BASE + 7n * MINUTE);
    // Ids do not depend on the base; times shift with it.
    expect(other.calls.map((c) => c.call_id)).toEqual(data.calls.map((c) => c.call_id));
    expect(BigInt(other.calls[0].start_ns) - BigInt(data.calls[0].start_ns)).toBe(7n * MINUTE);
  });

  it("has a few hundred calls with unique ids, all inside the span after the base", () => {
    const ids = [...data.calls, ...data.exchanges].map((c) => c.call_id);
    expect(ids.length).toBeGreaterThanOrEqual(300);
    expect(ids.length).toBeLessThanOrEqual(600);
    expect(new Set(ids).size).toBe(ids.length);
    const times = [
      ...data.calls.flatMap((c) => [BigInt(c.start_ns), c.end_ns ? BigInt(c.end_ns) : BigInt(c.start_ns) + BigInt(c.duration_ns ?? "0")]),
      ...data.exchanges.flatMap((x) => [BigInt(x.start_ns), BigInt(x.end_ns)]),
      ...data.events.map((e) => BigInt(e.at_ns)),
    ];
    const limit = BASE + BigInt(DEMO_SPAN_MINUTES) * MINUTE;
    expect(times.every((t) => t >= BASE && t < limit)).toBe(true);
    expect(DEMO_SPAN_MINUTES).toBeLessThan(180);
  });

  it("defaults the base to three hours ago", () => {
    expect(defaultDemoBase(10n * 3_600_000_000_000n)).toBe(7n * 3_600_000_000_000n);
  });

  it("comes from four agents, one of which sends no ids", () => {
    const agents = new Set([...data.calls, ...data.exchanges].map((c) => c.agent_name));
    expect([...agents].sort()).toEqual(["CoshNG", "explorer", "research-bot", "support-agent"]);
    const support = data.calls.filter((c) => c.agent_name === "support-agent");
    expect(support.length).toBeGreaterThan(50);
    expect(support.every((c) => c.session_id === undefined && c.conversation_id === undefined && c.turn_id === undefined)).toBe(true);
  });

  it("grows each conversation's history call by call", () => {
    const byConversation = new Map<string, CallPayload[]>();
    for (const c of data.calls) {
      if (!c.conversation_id) continue;
      byConversation.set(c.conversation_id, [...(byConversation.get(c.conversation_id) ?? []), c]);
    }
    expect(byConversation.size).toBeGreaterThan(20);
    for (const calls of byConversation.values()) {
      for (let i = 1; i < calls.length; i++) {
        const prev = calls[i - 1].input_messages;
        const next = calls[i].input_messages;
        expect(next.length).toBeGreaterThanOrEqual(prev.length);
        expect(next.slice(0, prev.length)).toEqual(prev);
        expect(BigInt(calls[i].start_ns)).toBeGreaterThanOrEqual(BigInt(calls[i - 1].end_ns ?? calls[i - 1].start_ns));
      }
    }
  });

  it("pairs every tool call with its result, except in the bricked conversation", () => {
    const unbalanced = data.calls.filter((c) => !toolBalance(c.input_messages).balanced);
    expect(unbalanced.length).toBeGreaterThanOrEqual(3);
    expect(new Set(unbalanced.map((c) => c.demo_scenario))).toEqual(new Set(["state_machine_error"]));
  });

  it("sends fake credentials with every raw exchange", () => {
    expect(data.exchanges.length).toBeGreaterThanOrEqual(5);
    for (const x of data.exchanges) {
      const h = x.request.headers;
      expect(h.authorization?.startsWith("Bearer sk-demo-") || h["x-api-key"] === DEMO_ANTHROPIC_KEY).toBe(true);
    }
    const sse = data.exchanges.filter((x) => x.response.sse);
    expect(sse.some((x) => x.response.sse?.includes("data: [DONE]"))).toBe(true);
    expect(sse.some((x) => x.response.sse?.includes("event: message_stop") && x.response.sse.includes('"tool_use"'))).toBe(true);
    expect(sse.some((x) => !x.response.sse?.includes("[DONE]") && !x.response.sse?.includes("message_stop"))).toBe(true);
    expect(data.exchanges.some((x) => x.response.status === 529)).toBe(true);
  });

  it("reports steered and drained turns after their calls", () => {
    for (const reason of ["steered", "drained"] as const) {
      const end = data.events.find((e) => e.kind === "turn_end" && e.reason === reason);
      if (end?.kind !== "turn_end") throw new Error(`no ${reason} turn`);
      const calls = data.calls.filter((c) => c.turn_id === end.turn_id);
      const empty = calls.filter((c) => c.status_code === 200 && c.output_messages.every((m) => m.parts.length === 0));
      expect(empty).toHaveLength(1);
      expect(BigInt(end.at_ns)).toBeGreaterThan(BigInt(empty[0].end_ns ?? "0"));
    }
  });
});
