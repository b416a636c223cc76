// Import of AgentSight data directories (SPEC §2.5): the real sample directory, and AgentSight
// files built here with exactly AgentSight's DDL, imported into fresh SightDesk databases;
// re-runs are no-ops; --follow picks up rows written after it started.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsight } from "@/lib/cli/commands/import";
import { EXIT_USAGE, InputError } from "@/lib/cli/errors";
import { createDb, type Db } from "@/lib/db/client";
import { createAgentSightFiles, insertCall, insertInterruption, SECOND, user } from "../fixtures/agentsight";
import { createTestDatabase, testPostgresUrl } from "../support/database";
import { waitFor } from "../support/waitFor";
import { AgentSightImporter, DeliveryError, follow, IMPORT_ACTOR, type ImportStats } from "@/lib/import/agentsight";
import { mapCall, mapInterruption } from "@/lib/import/agentsightMap";
import { AgentSightSource, SourceError } from "@/lib/import/agentsightSource";

const FIXTURE = path.resolve(__dirname, "../../../shared/fixtures/agentsight-sample");
const fixtureDir = fs.existsSync(FIXTURE) ? FIXTURE : "/work/shared/fixtures/agentsight-sample";

let tmp: string;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-import-"));
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function freshDb(name: string): Promise<Db> {
  const database = await createTestDatabase(name);
  const db = createDb(database.url);
  cleanups.push(() => database.drop(), () => db.$disconnect());
  return db;
}

/** An AgentSight data directory with the real DDL, open for writing like the daemon has it. */
function agentSightDir(name: string): { dir: string; genai: Database.Database; events: Database.Database } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const { genai, events } = createAgentSightFiles(dir);
  cleanups.push(() => {
    genai.close();
    events.close();
  });
  return { dir, genai, events };
}

type AgentSightDir = ReturnType<typeof agentSightDir>;

/** `d`'s files deleted and made anew, as AgentSight starting afresh does; the new ones open for writing. */
function remakeAgentSightFiles(d: AgentSightDir): Omit<AgentSightDir, "dir"> {
  d.genai.close();
  d.events.close();
  for (const f of fs.readdirSync(d.dir)) fs.rmSync(path.join(d.dir, f));
  const files = createAgentSightFiles(d.dir);
  cleanups.push(() => {
    files.genai.close();
    files.events.close();
  });
  return files;
}

const BASE_NS = 1_796_100_000_123_456_789n; // 19 digits, sub-millisecond digits a float would lose

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ["Session", "Conversation", "Turn", "Call", "Message", "Interruption", "InterruptionActivity", "Setting"]) {
    const rows = await db.$queryRawUnsafe<Array<{ n: bigint | number }>>(`SELECT COUNT(*) AS n FROM "${t}"`);
    out[t] = Number(rows[0].n);
  }
  return out;
}

describe("import agentsight: the sample data directory", () => {
  let db: Db;
  let first: ImportStats;

  beforeAll(async () => {
    db = await freshDb("sample");
    const source = AgentSightSource.open(fixtureDir);
    cleanups.push(() => source.close());
    first = await new AgentSightImporter(source, { kind: "local", db }).pass();
  });

  it("imports every call with its session and conversation", async () => {
    expect(first.calls).toEqual({ imported: 30, present: 0, skipped: 0, pending: 0 });
    expect(first.sessions).toEqual({ imported: 3, present: 0 });
    const sessions = await db.session.findMany({ orderBy: { id: "asc" } });
    expect(sessions.map((s) => s.id)).toEqual([
      "as-4ee1a630-0000-4000-8000-ad328846aa18",
      "as-5476807e-0000-4000-8000-ec18eac8d758",
      "as-bb130a42-0000-4000-8000-e8bc163c82ee",
    ]);
    expect(sessions.every((s) => s.callCount === 10)).toBe(true);
    expect(await db.conversation.count()).toBe(6);
    const call = await db.call.findUniqueOrThrow({ where: { id: "as-call-sample-0-0-0" } });
    expect(call.sessionId).toBe("as-5476807e-0000-4000-8000-ec18eac8d758");
    expect(call.conversationId).toBe("3669bf5463658d18aaac303480a29ff8");
    expect(call.startNs).toBe(1796014451327102476n); // exact, 19 digits
    expect(call.model).toBe("qwen-plus");
  });

  it("keeps AgentSight's interruption ids, types, severities, times and resolved flags", async () => {
    expect(first.interruptions).toEqual({ imported: 9, present: 0, skipped: 0, resolved: 2 });
    const rate = await db.interruption.findUniqueOrThrow({ where: { id: "7367e4cac92eafdcfa8919b5c2849de6" } });
    expect(rate).toMatchObject({
      type: "rate_limit",
      severity: "medium",
      status: "open",
      sessionId: "as-5476807e-0000-4000-8000-ec18eac8d758",
      conversationId: "3669bf5463658d18aaac303480a29ff8",
      callId: "as-call-sample-0-0-2",
      occurredAtNs: 1796014455327102476n,
      model: "qwen-plus",
    });
    expect(JSON.parse(rate.detail)).toEqual({ status_code: 429, model: "qwen-plus" });
    expect(rate.turnId).toBe((await db.call.findUniqueOrThrow({ where: { id: "as-call-sample-0-0-2" } })).turnId);

    const resolved = await db.interruption.findMany({ where: { id: { in: ["baf1b7b924002a77859cccd7466d44d7", "0b0f6c1235b640424128870908bd334b"] } } });
    expect(resolved.map((r) => [r.type, r.severity, r.status, r.resolvedBy])).toEqual([
      ["llm_error", "high", "resolved", IMPORT_ACTOR],
      ["llm_error", "high", "resolved", IMPORT_ACTOR],
    ]);
    const activity = await db.interruptionActivity.findMany({ where: { interruptionId: "baf1b7b924002a77859cccd7466d44d7" } });
    expect(activity).toMatchObject([{ actor: IMPORT_ACTOR, action: "resolve" }]);

    const loops = await db.interruption.findMany({ where: { id: { in: ["4a1bca549574423dca93e9e5413b8aaf", "d9495392948a11c9a5bb5238b9842764"] } } });
    expect(loops.map((l) => [l.type, l.severity])).toEqual([
      ["dead_loop", "critical"],
      ["dead_loop", "critical"],
    ]);
  });

  it("keeps the session-less agent_crash, with no session or conversation", async () => {
    const crash = await db.interruption.findUniqueOrThrow({ where: { id: "2f76a60ae388e1f29d4780913d2f8e3f" } });
    expect(crash).toMatchObject({ type: "agent_crash", severity: "critical", sessionId: null, conversationId: null, callId: null, pid: 20009, agentName: "agent-9" });
    expect(crash.occurredAtNs).toBe(1796014951327102476n);
  });

  it("runs SightDesk's own detection on the imported calls too (its own ids)", async () => {
    expect(first.detected).toBeGreaterThan(0);
    const forCall = await db.interruption.findMany({ where: { callId: "as-call-sample-0-0-2" }, orderBy: { id: "asc" } });
    expect(forCall.map((i) => i.type)).toEqual(["rate_limit", "rate_limit"]);
    expect(forCall.map((i) => i.id)).toContain("7367e4cac92eafdcfa8919b5c2849de6");
  });

  it("is a no-op when run again, with a new importer and without the high-water marks", async () => {
    const before = await counts(db);
    const snapshot = await db.interruption.findMany({ orderBy: { id: "asc" } });
    const source = AgentSightSource.open(fixtureDir);
    cleanups.push(() => source.close());
    const again = await new AgentSightImporter(source, { kind: "local", db }).pass();
    expect(again.calls.imported + again.interruptions.imported + again.detected).toBe(0);
    await db.setting.deleteMany({ where: { key: { startsWith: "import.agentsight:" } } });
    const full = await new AgentSightImporter(source, { kind: "local", db }).pass();
    expect(full.calls).toEqual({ imported: 0, present: 30, skipped: 0, pending: 0 });
    expect(full.interruptions).toEqual({ imported: 0, present: 9, skipped: 0, resolved: 0 });
    expect(full.detected).toBe(0);
    expect(full.sessions).toEqual({ imported: 0, present: 3 });
    expect(await counts(db)).toEqual(before);
    // without high-water marks (an uploaded copy): the same no-op, and no marks stored
    await db.setting.deleteMany({ where: { key: { startsWith: "import.agentsight:" } } });
    const unmarked = await new AgentSightImporter(source, { kind: "local", db }, { marks: false }).pass();
    expect(unmarked.calls.present + unmarked.interruptions.present).toBe(39);
    expect(await db.setting.count({ where: { key: { startsWith: "import.agentsight:" } } })).toBe(0);
    expect(await db.interruption.findMany({ orderBy: { id: "asc" } })).toEqual(snapshot);
  });
});

describe("import agentsight: when imported interruptions arrive", () => {
  it.skipIf(!testPostgresUrl())("stamps the open ones at the page's commit (PostgreSQL), as ingest does: a long page must not land behind the alert scan", async () => {
    const db = await freshDb("stamp");
    const source = AgentSightSource.open(fixtureDir);
    cleanups.push(() => source.close());
    const hourAgo = (BigInt(Date.now()) - 3_600_000n) * 1_000_000n; // the page "started" an hour ago
    const before = BigInt(Date.now() - 1000) * 1_000_000n;
    await new AgentSightImporter(source, { kind: "local", db }, { now: () => hourAgo }).pass();
    const rows = await db.interruption.findMany({ select: { status: true, createdAtNs: true } });
    const open = rows.filter((r) => r.status !== "resolved");
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((r) => r.createdAtNs >= before)).toBe(true);
    expect(rows.filter((r) => r.status === "resolved").every((r) => r.createdAtNs === hourAgo)).toBe(true);
  });
});

describe("import agentsight: files built with AgentSight's DDL", () => {
  it("maps statuses: interrupted streams are cut, pending calls wait until they settle", async () => {
    const db = await freshDb("statuses");
    const { dir, genai, events } = agentSightDir("statuses");
    const session = "5f0e2a4c-1b7d-4e8a-9c3f-2d6b8a0e4f17";
    const conv = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
    const history = [user("fix the failing build")];
    insertCall(genai, { callId: "st-1", session, conversation: conv, startNs: BASE_NS, input: history });
    // the proxy cut the stream after 40 s: no finish reason, no output
    insertCall(genai, { status: "interrupted", callId: "st-2", session, conversation: conv, startNs: BASE_NS + 10n * SECOND, finish: null, output: null, outputTokens: 0, input: history });
    const now = BigInt(Date.now()) * 1_000_000n;
    insertCall(genai, { status: "pending", callId: "st-3", session, conversation: conv, startNs: now, input: history });
    insertCall(genai, { callId: "st-4", session, conversation: conv, startNs: BASE_NS + 30n * SECOND, input: history });
    insertInterruption(events, { id: "0123456789abcdef0123456789abcdef", session, conversation: conv, callId: "st-2", type: "sse_truncated", severity: "high", atNs: BASE_NS + 13n * SECOND, detail: { duration_ms: 3000 } });

    const source = AgentSightSource.open(dir);
    const importer = new AgentSightImporter(source, { kind: "local", db }, { now: () => now });
    const stats = await importer.pass();
    expect(stats.calls).toEqual({ imported: 3, present: 0, skipped: 0, pending: 1 });
    expect(await db.call.findUnique({ where: { id: "st-3" } })).toBeNull();
    const cut = await db.call.findUniqueOrThrow({ where: { id: "st-2" } });
    expect(cut.sseDone).toBe(false);
    const detected = await db.interruption.findMany({ where: { callId: "st-2" } });
    expect(detected.map((d) => d.type).sort()).toEqual(["sse_truncated", "sse_truncated"]);
    expect(detected.map((d) => d.id)).toContain("0123456789abcdef0123456789abcdef");

    // AgentSight settles the pending call in place; the next pass imports it
    genai.prepare("UPDATE genai_events SET status = 'complete', end_timestamp_ns = ?, finish_reasons = '[\"stop\"]' WHERE call_id = 'st-3'").run(now + SECOND);
    const later = await importer.pass();
    expect(later.calls).toEqual({ imported: 1, present: 0, skipped: 0, pending: 0 });
    expect(await db.call.findUnique({ where: { id: "st-3" } })).not.toBeNull();
    source.close();
  });

  it("maps a genai_events row leniently", () => {
    const row = {
      id: 7n, call_id: "c-7", status: "complete", start_timestamp_ns: BASE_NS, end_timestamp_ns: BASE_NS + SECOND, pid: 42n,
      is_sse: 0n, status_code: 200n, finish_reasons: "stop", input_tokens: 10n,
      system_instructions: "You are terse.",
      input_messages: JSON.stringify([{ role: "user", content: "hi" }, { role: "assistant", parts: [{ type: "tool_call", name: "bash" }, { type: "text", content: "ok" }] }]),
      output_messages: "not json",
    };
    const m = mapCall(row, BASE_NS);
    expect(m.kind).toBe("call");
    if (m.kind !== "call") return;
    expect(m.call).toMatchObject({
      call_id: "c-7",
      start_ns: String(BASE_NS),
      end_ns: String(BASE_NS + SECOND),
      pid: 42,
      is_sse: false,
      finish_reasons: ["stop"],
      system_instructions: [{ type: "text", content: "You are terse." }],
      input_messages: [
        { role: "user", parts: [{ type: "text", content: "hi" }] },
        { role: "assistant", parts: [{ type: "text", content: "ok" }] }, // a tool call without id is dropped
      ],
      output_messages: [{ role: "user", parts: [{ type: "text", content: "not json" }] }],
    });
    expect(m.call.sse_done).toBeUndefined();
    expect(mapCall({ ...row, call_id: null }, BASE_NS).kind).toBe("skip");
    // a time in seconds or milliseconds is not taken for nanoseconds of 1970
    for (const wrong of [1_718_000_000n, 1_718_000_000_000n]) {
      expect(mapCall({ ...row, start_timestamp_ns: wrong }, BASE_NS)).toEqual({ kind: "skip", reason: `row 7 (c-7): start_timestamp_ns ${wrong} is not in nanoseconds since 1970 (seconds or milliseconds?)` });
    }
    const interruption = { id: 1n, interruption_id: "abcdef", interruption_type: "llm_error", severity: "high", occurred_at_ns: 1_718_000_000n, detail: "{}" };
    expect(mapInterruption(interruption, undefined, BASE_NS)).toEqual({ kind: "skip", reason: "interruption abcdef: occurred_at_ns 1718000000 is not in nanoseconds since 1970 (seconds or milliseconds?)" });
  });

  it("--follow picks up rows written after it started", async () => {
    const db = await freshDb("follow");
    const { dir, genai, events } = agentSightDir("follow");
    const session = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
    const conv = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
    const history = [user("summarise the incident")];
    insertCall(genai, { callId: "fw-1", session, conversation: conv, startNs: BASE_NS, input: history });

    const source = AgentSightSource.open(dir);
    const importer = new AgentSightImporter(source, { kind: "local", db });
    const controller = new AbortController();
    const passes: ImportStats[] = [];
    const running = follow(importer, { intervalMs: 50, signal: controller.signal, onPass: (s) => s && passes.push(s) });
    const until = (what: string, check: () => Promise<boolean>) => waitFor(what, check, { timeoutMs: 10_000, everyMs: 25 });
    await until("the first call", async () => (await db.call.count()) === 1);

    insertCall(genai, { callId: "fw-2", session, conversation: conv, startNs: BASE_NS + SECOND, statusCode: 503, finish: null, output: null, input: history });
    insertInterruption(events, { id: "fedcba9876543210fedcba9876543210", session, conversation: conv, callId: "fw-2", type: "service_unavailable", severity: "high", atNs: BASE_NS + 4n * SECOND, detail: { status_code: 503 }, resolved: 1 });
    insertInterruption(events, { id: "00112233445566778899aabbccddeeff", session: null, conversation: null, callId: null, type: "agent_crash", severity: "critical", atNs: BASE_NS + 9n * SECOND, detail: { pid: 31337, signal: "SIGKILL" } });
    // a pass that began before the rows were written may take the interruptions and leave the
    // call to the next pass: wait for both
    await until("the interruptions and the second call", async () => (await db.interruption.count({ where: { id: { in: ["fedcba9876543210fedcba9876543210", "00112233445566778899aabbccddeeff"] } } })) === 2 && (await db.call.count()) === 2);
    expect(await db.call.findUnique({ where: { id: "fw-2" } })).not.toBeNull();

    controller.abort();
    const total = await running;
    expect(total.calls.imported).toBe(2);
    expect(total.interruptions).toMatchObject({ imported: 2, resolved: 1 });
    const svc = await db.interruption.findUniqueOrThrow({ where: { id: "fedcba9876543210fedcba9876543210" } });
    expect(svc).toMatchObject({ status: "resolved", resolvedBy: IMPORT_ACTOR, severity: "high", occurredAtNs: BASE_NS + 4n * SECOND });
    expect(passes.length).toBeGreaterThan(1);

    // a restarted follower continues from the stored high-water marks: nothing again
    const before = await counts(db);
    const again = await new AgentSightImporter(source, { kind: "local", db }).pass();
    expect(again.calls.present + again.calls.imported + again.interruptions.imported + again.interruptions.present).toBe(0);
    expect(await counts(db)).toEqual(before);
    source.close();
  });

  it("a long --follow notices the files made anew and reads the new ones (it kept reading the deleted file)", async () => {
    const db = await freshDb("made-anew-follow");
    const dir = agentSightDir("made-anew-follow");
    insertCall(dir.genai, { callId: "kept-0", session: "s-kept", conversation: "c-kept", startNs: BASE_NS, input: [user("old")] });
    const source = AgentSightSource.open(dir.dir);
    cleanups.push(() => source.close());
    const importer = new AgentSightImporter(source, { kind: "local", db }); // one importer for the whole run, as --follow keeps
    expect((await importer.pass()).calls.imported).toBe(1);
    const { genai } = remakeAgentSightFiles(dir);
    insertCall(genai, { callId: "fresh-0", session: "s-kept", conversation: "c-fresh", startNs: BASE_NS + SECOND, input: [user("new")] });
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      expect((await importer.pass()).calls.imported).toBe(1);
    } finally {
      console.warn = warn;
    }
    expect(await db.call.count({ where: { id: "fresh-0" } })).toBe(1);
  });

  it("reads a file made anew (ids from 1 again, below the mark) from the start, and says so", async () => {
    const db = await freshDb("made-anew");
    const session = "1d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
    const first = agentSightDir("made-anew-1");
    for (let i = 0; i < 5; i++) insertCall(first.genai, { callId: `old-${i}`, session, conversation: `c-old-${i}`, startNs: BASE_NS + BigInt(i) * SECOND, input: [user("old")] });
    const firstSource = AgentSightSource.open(first.dir);
    expect((await new AgentSightImporter(firstSource, { kind: "local", db }).pass()).calls.imported).toBe(5);
    firstSource.close();
    // the same directory, its files deleted and made again by the daemon: ids start at 1
    const { genai } = remakeAgentSightFiles(first);
    for (let i = 0; i < 2; i++) insertCall(genai, { callId: `new-${i}`, session, conversation: `c-new-${i}`, startNs: BASE_NS + BigInt(10 + i) * SECOND, input: [user("new")] });
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (m: string) => void warnings.push(m);
    try {
      const source = AgentSightSource.open(first.dir);
      const stats = await new AgentSightImporter(source, { kind: "local", db }).pass();
      source.close();
      expect(stats.calls.imported).toBe(2);
    } finally {
      console.warn = warn;
    }
    expect(await db.call.count({ where: { id: { in: ["new-0", "new-1"] } } })).toBe(2);
    expect(warnings.join("\n")).toMatch(/genai_events: the file's ids end at 2, below the 5 imported from it before: a new file/);
  });

  it("forwards calls only when the sink is a server", async () => {
    const { dir, genai, events } = agentSightDir("remote");
    insertCall(genai, { callId: "rm-1", session: "s-rm", conversation: "c-rm", startNs: BASE_NS, input: [user("hello")] });
    insertInterruption(events, { id: "abababababababababababababababab", session: "s-rm", conversation: "c-rm", callId: "rm-1", type: "llm_error", severity: "high", atNs: BASE_NS, detail: {} });
    const sent: unknown[][] = [];
    const source = AgentSightSource.open(dir);
    const importer = new AgentSightImporter(source, {
      kind: "remote",
      postCalls: async (calls) => {
        sent.push(JSON.parse(JSON.stringify(calls)));
        return { received: calls.length, accepted: calls.length, duplicates: 0, interruptions: 0 };
      },
    });
    const stats = await importer.pass();
    expect(stats.calls.imported).toBe(1);
    expect(stats.interruptions.imported).toBe(0);
    expect(sent).toHaveLength(1);
    expect(sent[0][0]).toMatchObject({ call_id: "rm-1", start_ns: String(BASE_NS), end_ns: String(BASE_NS + 3n * SECOND), sse_done: true });
    expect(await importer.pass()).toMatchObject({ calls: { imported: 0, present: 0 } }); // in-memory mark
    source.close();
  });

  it("into a server, a restarted import goes on where the last one stopped (its marks kept in a file), and sends only what is new", async () => {
    const made = agentSightDir("remote-restart");
    const { dir, genai } = made;
    for (let i = 0; i < 3; i++) insertCall(genai, { callId: `rr-${i}`, session: "s-rr", conversation: `c-rr-${i}`, startNs: BASE_NS + BigInt(i) * SECOND, input: [user(`hello ${i}`)] });
    const markFile = path.join(tmp, "remote-restart-marks", "marks.json");
    const sent: string[] = [];
    const runOnce = async () => {
      const source = AgentSightSource.open(dir); // a new process each time: nothing kept in memory
      try {
        return await new AgentSightImporter(source, {
          kind: "remote",
          postCalls: async (calls) => {
            sent.push(...calls.map((c) => c.call_id));
            return { received: calls.length, accepted: calls.length, duplicates: 0, interruptions: 0 };
          },
        }, { markFile }).pass();
      } finally {
        source.close();
      }
    };
    await runOnce();
    expect(sent).toEqual(["rr-0", "rr-1", "rr-2"]);
    // before, a restart sent the whole history again
    expect((await runOnce()).calls.imported).toBe(0);
    insertCall(genai, { callId: "rr-3", session: "s-rr", conversation: "c-rr-3", startNs: BASE_NS + 3n * SECOND, input: [user("hello 3")] });
    await runOnce();
    expect(sent).toEqual(["rr-0", "rr-1", "rr-2", "rr-3"]);
    expect(JSON.parse(fs.readFileSync(markFile, "utf8"))).toMatchObject({ genai_events: expect.stringMatching(/^\d+$/) });
    // stopped, AgentSight starts afresh, and its new file passes the old mark before the restart:
    // the mark is the old file's, so the new one is read from its start (none of its rows skipped)
    const fresh = remakeAgentSightFiles(made);
    for (let i = 0; i < 6; i++) insertCall(fresh.genai, { callId: `rn-${i}`, session: "s-rr", conversation: `c-rn-${i}`, startNs: BASE_NS + BigInt(10 + i) * SECOND, input: [user(`again ${i}`)] });
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      await runOnce();
    } finally {
      console.warn = warn;
    }
    expect(sent.slice(4)).toEqual(["rn-0", "rn-1", "rn-2", "rn-3", "rn-4", "rn-5"]);
  });

  it("skips a call too large for a server's request, naming it, and forwards the rest (a forwarder would retry it forever)", async () => {
    const { dir, genai } = agentSightDir("remote-large");
    insertCall(genai, { callId: "big-1", session: "s-big", conversation: "c-big", startNs: BASE_NS, input: [user("x".repeat(11 * 1024 * 1024))] });
    insertCall(genai, { callId: "small-1", session: "s-big", conversation: "c-small", startNs: BASE_NS + SECOND, input: [user("hello")] });
    const sent: string[] = [];
    const source = AgentSightSource.open(dir);
    const stats = await new AgentSightImporter(source, {
      kind: "remote",
      postCalls: async (calls) => {
        sent.push(...calls.map((c) => c.call_id));
        return { received: calls.length, accepted: calls.length, duplicates: 0, interruptions: 0 };
      },
    }).pass();
    source.close();
    expect(sent).toEqual(["small-1"]);
    expect(stats.calls.imported).toBe(1);
    expect(JSON.stringify(stats)).toMatch(/call big-1: \d+ bytes of JSON, more than a server takes in one request/);
  });

  it("--follow stops when the server refuses the token, and waits out a server that is away", async () => {
    const { dir, genai } = agentSightDir("follow-errors");
    insertCall(genai, { callId: "fe-1", session: "s-fe", conversation: "c-fe", startNs: BASE_NS, input: [user("hello")] });
    const run = (fail: (attempt: number) => Error | null) => {
      let attempt = 0;
      const source = AgentSightSource.open(dir);
      cleanups.push(() => source.close());
      const importer = new AgentSightImporter(source, {
        kind: "remote",
        postCalls: async (calls) => {
          const error = fail(++attempt);
          if (error) throw error;
          return { received: calls.length, accepted: calls.length, duplicates: 0, interruptions: 0 };
        },
      });
      const controller = new AbortController();
      const errors: string[] = [];
      const done = follow(importer, { intervalMs: 10, signal: controller.signal, onPass: (stats, e) => (e ? errors.push(e.message) : stats?.calls.imported && controller.abort()) });
      return { done, errors };
    };
    const refused = run(() => new DeliveryError("Token rejected by http://x: unauthorized", true));
    await expect(refused.done).rejects.toThrow(/Token rejected/);
    const away = run((attempt) => (attempt < 3 ? new DeliveryError("SightDesk at http://x failed (HTTP 503)") : null));
    expect((await away.done).calls.imported).toBe(1);
    expect(away.errors).toHaveLength(2);
  });

  it("rejects a missing directory, missing files and wrong tables", async () => {
    expect(() => AgentSightSource.open(path.join(tmp, "nope"))).toThrow(SourceError);
    const empty = path.join(tmp, "empty");
    fs.mkdirSync(empty);
    expect(() => AgentSightSource.open(empty)).toThrow(/Neither genai_events.db nor interruption_events.db/);
    const wrong = path.join(tmp, "wrong");
    fs.mkdirSync(wrong);
    const db = new Database(path.join(wrong, "genai_events.db"));
    db.exec("CREATE TABLE calls (id INTEGER PRIMARY KEY, call_id TEXT)");
    db.close();
    expect(() => AgentSightSource.open(wrong)).toThrow(/has no table genai_events/);
    const junk = path.join(tmp, "junk");
    fs.mkdirSync(junk);
    fs.writeFileSync(path.join(junk, "interruption_events.db"), "id,interruption_id\n1,abc\n");
    expect(() => AgentSightSource.open(junk)).toThrow(/interruption_events\.db is not a SQLite database/);
    const io = { out: () => {}, err: () => {} };
    await expect(agentsight(wrong, { interval: 2 }, { io, global: {} })).rejects.toSatisfy((e) => e instanceof InputError && e.exitCode === EXIT_USAGE);
  });
});
