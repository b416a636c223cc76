// The demo loaded into a fresh SQLite database through the real ingest path: every
// interruption type fires, withdrawals and cancellations behave, no credential is stored, and
// a second load changes nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { DEMO_BASE_SETTING, loadDemo, type DemoLoadResult } from "@/lib/demo/load";
import { DEMO_ANTHROPIC_KEY, DEMO_DASHSCOPE_KEY, DEMO_OPENAI_KEY, LEAKED_TEST_KEY, defaultDemoBase, generateDemo, type DemoData } from "@/lib/demo/scenarios";
import { INTERRUPTION_TYPES } from "@/lib/domain/interruptions";
import { turnRowId } from "@/lib/ingest/keys";

let dir: string;
let database: TestDatabase;
let db: Db;
let first: DemoLoadResult;
let data: DemoData;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-demo-"));
  process.env.SIGHTDESK_DATA_DIR = dir;
  database = await createTestDatabase("demo");
  db = createDb(database.url);
  first = await loadDemo(db, defaultDemoBase());
  data = generateDemo(first.baseNs);
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const counts = async () => ({
  calls: await db.call.count(),
  messages: await db.message.count(),
  interruptions: await db.interruption.count(),
  toolCalls: await db.toolCall.count(),
  sessions: await db.session.count(),
  activities: await db.interruptionActivity.count(),
});

const detailOf = (row: { detail: string }) => JSON.parse(row.detail) as Record<string, unknown>;

describe("demo load", () => {
  it("stores every call and reports what it loaded", async () => {
    const total = data.calls.length + data.exchanges.length;
    expect(total).toBeGreaterThanOrEqual(300);
    expect(total).toBeLessThanOrEqual(600);
    expect(first.calls).toBe(total);
    expect(await db.call.count()).toBe(total);
    expect(first.interruptions).toBe(await db.interruption.count());
    expect(first.sessions.length).toBe(await db.session.count());
    expect(first.withdrawn).toBe(2);
    const stored = await db.setting.findUnique({ where: { key: DEMO_BASE_SETTING } });
    expect(stored?.value).toBe(first.baseNs.toString());
  });

  it("produces at least one interruption of each of the 18 types", async () => {
    const rows = await db.interruption.groupBy({ by: ["type"], _count: { _all: true } });
    const byType = Object.fromEntries(rows.map((r) => [r.type, r._count._all]));
    const missing = INTERRUPTION_TYPES.filter((t) => !byType[t]);
    expect(missing).toEqual([]);
    expect(Object.keys(byType).sort()).toEqual([...INTERRUPTION_TYPES].sort());
  });

  it("finds both dead-loop rules and a rate-limit retry storm", async () => {
    const loops = (await db.interruption.findMany({ where: { type: "dead_loop" } })).map((r) => detailOf(r).rule);
    expect(loops).toEqual(expect.arrayContaining(["tool_sequence_repetition", "busy_wait"]));
    const storms = (await db.interruption.findMany({ where: { type: "retry_storm" } })).map((r) => detailOf(r));
    expect(storms).toEqual(expect.arrayContaining([expect.objectContaining({ repeated_type: "rate_limit", count: 6 })]));
  });

  it("flags three crashes (oom, signal, exit code) and not the graceful SIGTERM after a drained turn", async () => {
    const crashes = (await db.interruption.findMany({ where: { type: "agent_crash" } })).map((r) => detailOf(r));
    expect(crashes.map((c) => c.reason).sort()).toEqual(["exit_code", "oom", "signal"]);
    expect(crashes).toEqual(expect.arrayContaining([expect.objectContaining({ oom: true }), expect.objectContaining({ signal: "SIGKILL", oom: false })]));
    const sigterm = data.events.find((e) => e.kind === "process_exit" && e.signal === "SIGTERM");
    expect(sigterm).toBeDefined();
    const session = await db.session.findFirst({ where: { pid: sigterm?.kind === "process_exit" ? sigterm.pid : -1 } });
    expect(session?.exitSignal).toBe("SIGTERM");
    expect(await db.interruption.count({ where: { type: "agent_crash", sessionId: session?.id } })).toBe(0);
  });

  it("links the bricked conversation's later 400s to the call that bricked it", async () => {
    const rows = await db.interruption.findMany({ where: { type: "state_machine_error" }, orderBy: { occurredAtNs: "asc" } });
    const details = rows.map(detailOf);
    expect(details.every((d) => d.rule === "unbalanced_tool_calls")).toBe(true);
    const conversation = rows[0].conversationId;
    const bricked = await db.conversation.findUnique({ where: { id: conversation ?? "" } });
    expect(bricked?.brickedSinceCallId).toBe(rows[0].callId);
    expect(details.slice(1).every((d) => d.bricked_since_call_id === rows[0].callId)).toBe(true);
    expect(rows.length).toBeGreaterThanOrEqual(3);
  });

  it("withdraws the empty answers of the steered and drained turns (resolved by system)", async () => {
    const suspended = data.events.flatMap((e) => (e.kind === "turn_end" && (e.reason === "steered" || e.reason === "drained") ? [turnRowId(e.session_id, e.turn_id)] : []));
    expect(suspended).toHaveLength(2);
    const rows = await db.interruption.findMany({ where: { type: "empty_response", turnId: { in: suspended } } });
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.status).toBe("resolved");
      expect(r.resolvedBy).toBe("system");
      expect(await db.interruptionActivity.count({ where: { interruptionId: r.id, actor: "system", action: "resolve" } })).toBe(1);
    }
    // The support agent's empty answer belongs to an ordinary turn and stays open.
    expect(await db.interruption.count({ where: { type: "empty_response", status: "open" } })).toBeGreaterThanOrEqual(1);
  });

  it("does not flag the cancelled empty call", async () => {
    const cancelled = data.calls.filter((c) => c.cancelled);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0].output_messages.every((m) => m.parts.length === 0)).toBe(true);
    expect(await db.interruption.count({ where: { callId: cancelled[0].call_id } })).toBe(0);
  });

  it("leaves the clean conversations without any interruption", async () => {
    const clean = data.calls.filter((c) => c.demo_scenario === "clean").map((c) => c.call_id);
    const rows = await db.call.findMany({ where: { id: { in: clean } }, select: { conversationId: true } });
    const conversations = [...new Set(rows.map((r) => r.conversationId ?? ""))];
    expect(conversations.length).toBeGreaterThan(40);
    const found = await db.interruption.findMany({ where: { conversationId: { in: conversations } }, select: { type: true, conversationId: true, detail: true } });
    expect(found).toEqual([]);
  });

  it("derives the keys of the agent that sends none", async () => {
    const support = data.calls.filter((c) => c.agent_name === "support-agent");
    expect(support.every((c) => !c.session_id && !c.conversation_id && !c.turn_id)).toBe(true);
    const rows = await db.call.findMany({ where: { agentName: "support-agent" }, select: { sessionId: true, conversationId: true, turnId: true } });
    expect(new Set(rows.map((r) => r.sessionId)).size).toBe(2);
    expect(rows.every((r) => /^[0-9a-f]{32}$/.test(r.conversationId ?? "") && /^[0-9a-f]{32}$/.test(r.turnId ?? ""))).toBe(true);
  });

  it("never stores the credentials sent with the raw exchanges", async () => {
    const secrets = ["sk-demo", DEMO_OPENAI_KEY, DEMO_DASHSCOPE_KEY, DEMO_ANTHROPIC_KEY, LEAKED_TEST_KEY];
    const texts: string[] = [];
    for (const c of await db.call.findMany()) texts.push(JSON.stringify(c, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    for (const m of await db.message.findMany()) texts.push(m.parts);
    for (const b of await db.blob.findMany()) texts.push(b.content);
    for (const t of await db.toolCall.findMany()) texts.push(`${t.arguments ?? ""}\n${t.response ?? ""}\n${t.error ?? ""}`);
    for (const i of await db.interruption.findMany()) texts.push(i.detail);
    const all = texts.join("\n");
    for (const s of secrets) expect(all.includes(s), s).toBe(false);
    // A key printed by a tool is masked in the stored history.
    const env = await db.message.findMany({ where: { parts: { contains: "OPENAI_API_KEY=" } } });
    expect(env.length).toBeGreaterThanOrEqual(1);
    expect(env.every((m) => m.parts.includes("OPENAI_API_KEY=[redacted]"))).toBe(true);
    // The exchanges really carried them.
    expect(JSON.stringify(data.exchanges)).toContain(DEMO_ANTHROPIC_KEY);
    expect(JSON.stringify(data.exchanges)).toContain(`Bearer ${DEMO_DASHSCOPE_KEY}`);
  });

  it("normalizes the raw exchanges into the same conversations and histories as the calls around them", async () => {
    for (const x of data.exchanges) {
      const call = await db.call.findUnique({ where: { id: x.call_id } });
      expect(call?.conversationId).toBeTruthy();
      const calls = await db.call.findMany({ where: { conversationId: call?.conversationId } });
      expect(calls.length, x.call_id).toBeGreaterThan(1);
      const complete = x.response.status === 200 && (x.response.body !== undefined || /\[DONE\]|message_stop/.test(x.response.sse ?? ""));
      if (!complete) continue;
      // No fork: the exchange's messages are the very nodes the later normalized calls extend.
      const messages = await db.message.count({ where: { conversationId: call?.conversationId ?? "" } });
      expect(messages).toBe(Math.max(...calls.map((c) => c.inputCount + c.outputCount)));
    }
  });

  it("keeps the XSS-looking model output as plain text", async () => {
    const messages = await db.message.findMany({ where: { parts: { contains: "onerror=alert(1)" } } });
    expect(messages.length).toBeGreaterThanOrEqual(1);
  });

  it("adds nothing when loaded a second time", async () => {
    const before = await counts();
    const again = await loadDemo(db, defaultDemoBase() + 123_456_789n);
    expect(again.baseNs).toBe(first.baseNs);
    expect(again.calls).toBe(0);
    expect(again.interruptions).toBe(0);
    expect(again.withdrawn).toBe(0);
    expect(again.duplicates).toBe(first.calls);
    expect(again.sessions).toEqual(first.sessions);
    expect(await counts()).toEqual(before);
  });
});
