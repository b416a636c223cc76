// The dead-loop action (SPEC §7): the decision (detections → nothing / SIGTERM / SIGKILL), the
// signed request and the forwarder's checks, and the server side against a real SQLite database
// with a fake forwarder: one request per signal, recorded, visible in the interruption's activity.
import type { Actor } from "@/lib/auth/actor";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/waitFor";
import { signBody } from "@/lib/alerts/rules";
import { spawn } from "node:child_process";
import { useTestDb } from "../support/testDb";
import { DeadLoopAction, DEADLOOP_ACTOR } from "@/lib/deadloop/action";
import fs from "node:fs";
import { ForwardedProcesses, parseStartTime, procStartTime, startControl, type ControlServer, type StartTimeReader } from "@/lib/deadloop/control";
import { registerForwarder } from "@/lib/deadloop/forwarders";
import { MAX_SKEW_MS, nextSignal, verifyTerminate, type TerminatePayload } from "@/lib/deadloop/protocol";
import { onDeadLoopDetections } from "@/lib/ingest/afterCommit";
import { callSchema } from "@/lib/ingest/schema";
import { deriveSessionId } from "@/lib/ingest/keys";
import { ingestCalls } from "@/lib/ingest/storeCalls";

const SECRET = "k".repeat(64);
/** The token a forwarder registers with. */
const FORWARDER_TOKEN: Actor = { kind: "token", id: "tok-fwd", name: "fwd", scopes: ["ingest", "forwarder"] };
/** Unix seconds, as X-SightDesk-Timestamp carries them. */
const secs = (ms = Date.now()) => Math.floor(ms / 1000);
/** The signature and timestamp headers of a body, signed at `ms`. */
const sign = (secret: string, body: string, ms = Date.now()) => ({ signature: signBody(secret, body, secs(ms)), timestamp: String(secs(ms)) });

function payload(overrides: Partial<TerminatePayload> = {}): TerminatePayload {
  return {
    request_id: `r-${Math.random()}`, session_id: "s-1", pid: 4242, host: "web-3", agent_name: "CoshNG",
    signal: "SIGTERM", interruption_id: "i-1", detections: 3, issued_at_ms: Date.now(), ...overrides,
  };
}

describe("nextSignal", () => {
  const term = { signal: "SIGTERM", detections: 3 };
  it.each([
    [0, [], null],
    [2, [], null],
    [3, [], "SIGTERM"],
    [5, [], "SIGTERM"], // the count may jump past the threshold in one batch
    [3, [term], null], // the same count again: no escalation
    [4, [term], "SIGKILL"],
    [4, [{ ...term, status: "pending" }], null], // the SIGTERM is still being sent: SIGKILL waits for its outcome
    [9, [term, { signal: "SIGKILL", detections: 4 }], null], // nothing after SIGKILL
  ] as const)("%i detections after %j → %s", (detections, prior, expected) => {
    expect(nextSignal(detections, 3, prior)).toBe(expected);
  });

  it("honours kill_after_count", () => {
    expect(nextSignal(1, 1, [])).toBe("SIGTERM");
    expect(nextSignal(9, 10, [])).toBeNull();
  });
});

describe("verifyTerminate", () => {
  const now = Date.now();
  const check = (body: string, h: { signature?: string | null; timestamp?: string | null }, at = now) => verifyTerminate(SECRET, body, h.signature, h.timestamp, at);

  it("accepts a request signed with the key and timestamp, within the window", () => {
    const body = JSON.stringify(payload({ issued_at_ms: now - 5000 }));
    expect(check(body, sign(SECRET, body, now - 5000))).toMatchObject({ ok: true, payload: { pid: 4242, signal: "SIGTERM" } });
  });

  it("refuses a bad, missing or foreign signature, a missing timestamp and a tampered body with 401", () => {
    const body = JSON.stringify(payload());
    const good = sign(SECRET, body, now);
    expect(check(body, { timestamp: good.timestamp })).toMatchObject({ ok: false, status: 401 });
    expect(check(body, { signature: good.signature })).toMatchObject({ ok: false, status: 401 });
    expect(check(body, { ...good, signature: "sha256=00" })).toMatchObject({ ok: false, status: 401 });
    expect(check(body, sign("another key", body, now))).toMatchObject({ ok: false, status: 401 });
    const tampered = body.replace('"pid":4242', '"pid":1');
    expect(check(tampered, good)).toMatchObject({ ok: false, status: 401 });
    // the timestamp is signed: moving it forward breaks the signature
    expect(check(body, { ...good, timestamp: String(Number(good.timestamp) + 1) })).toMatchObject({ ok: false, status: 401 });
  });

  it("refuses an old (replayed) or future-dated request with 401", () => {
    for (const at of [now - MAX_SKEW_MS - 1000, now + MAX_SKEW_MS + 1000]) {
      const body = JSON.stringify(payload({ issued_at_ms: at }));
      expect(check(body, sign(SECRET, body, at))).toMatchObject({ ok: false, status: 401, error: expect.stringMatching(/window/) });
      // a fresh signature timestamp does not save a stale issued_at_ms
      expect(check(body, sign(SECRET, body, now))).toMatchObject({ ok: false, status: 401, error: expect.stringMatching(/window/) });
    }
  });

  it("refuses a well-signed body of the wrong shape with 400", () => {
    const body = JSON.stringify({ ...payload(), signal: "SIGHUP" });
    expect(check(body, sign(SECRET, body, now))).toMatchObject({ ok: false, status: 400, error: expect.stringMatching(/^signal/) });
  });
});

describe("parseStartTime (/proc/<pid>/stat)", () => {
  // fields after the command name: state (3) … starttime (22) …
  const after = (start: string) => `S 1 4242 4242 0 -1 4194560 1000 0 0 0 12 3 0 0 20 0 1 0 ${start} 123456 789 18446744073709551615`;
  it.each([
    ["4242 (node) " + after("987654"), "987654"],
    ["4242 (my agent) " + after("111"), "111"],
    ["4242 (a) (b) c)) " + after("222"), "222"], // the name may hold spaces and parentheses: counted from the last ")"
    ["4242 ()) " + after("333"), "333"],
    ["4242 (node) S 1 2", null],
    ["garbage", null],
    ["4242 (node) " + after("12x"), null],
  ])("%j → %s", (text, expected) => {
    expect(parseStartTime(text)).toBe(expected);
  });

  it("reads a real process's start time from /proc: stable while it runs, gone after it exits", async () => {
    if (!fs.existsSync("/proc/self/stat")) return;
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      await new Promise((r) => child.once("spawn", r));
      const start = procStartTime(child.pid!);
      expect(start).toMatch(/^\d+$/);
      expect(procStartTime(child.pid!)).toBe(start);
      expect(procStartTime(process.pid)).toMatch(/^\d+$/);
    } finally {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
    expect(procStartTime(child.pid!)).toBeNull();
  });
});

describe("the forwarder's control listener", () => {
  let control: ControlServer;
  const kills: Array<[number, string]> = [];
  /** the fake /proc: pid → start time (absent: no such process) */
  const starts = new Map<number, string>([[4242, "1000"], [5151, "2000"], [6161, "3000"], [7272, "4000"]]);
  const reader: StartTimeReader = (pid) => starts.get(pid) ?? null;
  const processes = new ForwardedProcesses("web-3", reader);
  processes.add([
    { call_id: "a", session_id: "s-1", pid: 4242 },
    { call_id: "b", agent_name: "CoshNG", pid: 5151 }, // no session id: derived from agent + pid + this host
    { call_id: "c", session_id: "s-gone", pid: 6161 },
    { call_id: "d", session_id: "s-reused", pid: 7272 },
    { call_id: "e", session_id: "s-late", pid: 8383 }, // forwarded after its process had exited
  ]);

  beforeAll(async () => {
    control = await startControl({
      secret: SECRET,
      processes,
      kill: (pid, signal) => {
        if (pid === 6161) throw Object.assign(new Error("kill ESRCH"), { code: "ESRCH" });
        kills.push([pid, signal]);
      },
    });
  });
  afterAll(() => control?.close());

  async function post(body: string, h: { signature?: string | null; timestamp?: string | null } | null, route = "/terminate") {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (h?.signature) headers["x-sightdesk-signature"] = h.signature;
    if (h?.timestamp) headers["x-sightdesk-timestamp"] = h.timestamp;
    const res = await fetch(`${control.url}${route}`, { method: "POST", headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const signed = (p: TerminatePayload) => {
    const body = JSON.stringify(p);
    return post(body, sign(SECRET, body));
  };

  it("signals a forwarded process and answers what it did", async () => {
    expect(await signed(payload({ signal: "SIGTERM" }))).toEqual({ status: 200, body: { result: "signaled", pid: 4242, signal: "SIGTERM" } });
    const derived = deriveSessionId("CoshNG", 5151, "web-3");
    expect((await signed(payload({ session_id: derived, pid: 5151, signal: "SIGKILL" }))).status).toBe(200);
    expect(kills).toEqual([[4242, "SIGTERM"], [5151, "SIGKILL"]]);
  });

  it("reports a process that is gone", async () => {
    expect(await signed(payload({ session_id: "s-gone", pid: 6161 }))).toMatchObject({ status: 200, body: { result: "not_running" } });
  });

  it("does not signal a pid that now belongs to another process (another start time), or whose process has gone", async () => {
    kills.length = 0;
    starts.set(7272, "4999"); // the agent exited and an unrelated process got its pid
    expect(await signed(payload({ session_id: "s-reused", pid: 7272 }))).toEqual({ status: 200, body: { result: "not_running", pid: 7272, signal: "SIGTERM" } });
    starts.delete(7272);
    expect(await signed(payload({ session_id: "s-reused", pid: 7272 }))).toMatchObject({ status: 200, body: { result: "not_running" } });
    starts.set(8383, "5000"); // its calls were forwarded after it had exited: whatever runs under that pid now is another process
    expect(await signed(payload({ session_id: "s-late", pid: 8383 }))).toMatchObject({ status: 200, body: { result: "not_running" } });
    expect(kills).toEqual([]);
    // a new process of the same session whose calls are forwarded is the one signalled from then on
    starts.set(7272, "6000");
    processes.add([{ call_id: "f", session_id: "s-reused", pid: 7272 }]);
    expect(await signed(payload({ session_id: "s-reused", pid: 7272 }))).toMatchObject({ status: 200, body: { result: "signaled" } });
    expect(kills).toEqual([[7272, "SIGTERM"]]);
  });

  it("never signals a pid it has not forwarded calls for, or under another session", async () => {
    kills.length = 0;
    expect(await signed(payload({ pid: 1 }))).toMatchObject({ status: 403 });
    expect(await signed(payload({ pid: 9999 }))).toMatchObject({ status: 403, body: { error: expect.stringMatching(/not a process this forwarder/) } });
    expect(await signed(payload({ session_id: "s-other", pid: 4242 }))).toMatchObject({ status: 403 });
    expect(await signed(payload({ pid: process.pid }))).toMatchObject({ status: 403 });
    expect(kills).toEqual([]);
  });

  it("refuses bad signatures (401), replays (409), stale requests (401) and other routes (404)", async () => {
    kills.length = 0;
    const body = JSON.stringify(payload());
    const good = sign(SECRET, body);
    expect((await post(body, sign("wrong", body))).status).toBe(401);
    expect((await post(body, null)).status).toBe(401);
    expect((await post(body, { signature: good.signature })).status).toBe(401); // no timestamp
    expect((await post(body, good)).status).toBe(200);
    expect(await post(body, good)).toMatchObject({ status: 409, body: { error: expect.stringMatching(/handled already/) } });
    expect((await signed(payload({ issued_at_ms: Date.now() - 10 * 60_000 }))).status).toBe(401);
    const stale = JSON.stringify(payload());
    expect((await post(stale, sign(SECRET, stale, Date.now() - 10 * 60_000))).status).toBe(401); // an old signature timestamp
    expect((await post(body, good, "/other")).status).toBe(404);
    expect(kills).toEqual([[4242, "SIGTERM"]]);
  });
});

describe("the control listener with a real process and /proc", () => {
  it("signals the real child it forwarded calls for, and answers not_running once it has gone", async () => {
    if (!fs.existsSync("/proc/self/stat")) return;
    const child = spawn(process.execPath, ["-e", 'process.on("SIGTERM", () => { console.log("bye"); process.exit(0); }); console.log("up"); setInterval(() => {}, 1000)'], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => child.once("exit", r));
    const processes = new ForwardedProcesses("real-host"); // the default reader: /proc
    const control = await startControl({ secret: SECRET, processes });
    try {
      while (!out.includes("up")) await new Promise((r) => setTimeout(r, 20));
      processes.add([{ call_id: "r", session_id: "s-real", pid: child.pid! }]);
      const send = async () => {
        const body = JSON.stringify(payload({ session_id: "s-real", pid: child.pid! }));
        const { signature, timestamp } = sign(SECRET, body);
        const res = await fetch(`${control.url}/terminate`, { method: "POST", headers: { "x-sightdesk-signature": signature, "x-sightdesk-timestamp": timestamp }, body });
        return (await res.json()) as Record<string, unknown>;
      };
      expect(await send()).toMatchObject({ result: "signaled", pid: child.pid });
      await exited;
      expect(out).toContain("bye");
      expect(await send()).toMatchObject({ result: "not_running", pid: child.pid });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await control.close();
    }
  });
});

describe("DeadLoopAction (server side)", () => {
  const db = useTestDb("deadloop");

  const BASE = BigInt(Date.now() - 3_600_000) * 1_000_000n;
  /** `n` calls of one conversation that each read the same file: from the 5th on, each is a detection. */
  function loopCalls(host: string, pid: number, from: number, n: number) {
    return Array.from({ length: n }, (_, k) => {
      const i = from + k;
      return callSchema.parse({
        call_id: `${host}-${pid}-${i}`, agent_name: "CoshNG", pid, host, conversation_id: `conv-${host}-${pid}`,
        start_ns: String(BASE + BigInt(i) * 1_000_000_000n), end_ns: String(BASE + BigInt(i) * 1_000_000_000n + 500_000_000n),
        status_code: 200, finish_reasons: ["tool_calls"],
        input_messages: [{ role: "user", parts: [{ type: "text", content: "fix the build" }] }],
        output_messages: [{ role: "assistant", parts: [{ type: "tool_call", id: `tc-${i}`, name: "read_file", arguments: { path: "package.json" } }] }],
      });
    });
  }

  type Sent = { url: string; headers: Record<string, string>; body: TerminatePayload; raw: string };
  function fakeForwarder(answer: (p: TerminatePayload) => Response = (p) => Response.json({ result: "signaled", pid: p.pid, signal: p.signal })) {
    const sent: Sent[] = [];
    const fetchImpl = async (url: string, init: RequestInit) => {
      const raw = String(init.body);
      const body = JSON.parse(raw) as TerminatePayload;
      sent.push({ url, headers: init.headers as Record<string, string>, body, raw });
      return answer(body);
    };
    return { sent, fetchImpl };
  }

  it("sends SIGTERM at kill_after_count detections and SIGKILL at the next one, signed, once each", async () => {
    const { sent, fetchImpl } = fakeForwarder();
    const action = new DeadLoopAction({ db: db(), killAfterCount: 3, fetch: fetchImpl, log: () => undefined });
    const stop = onDeadLoopDetections((ids) => action.notify(ids));
    try {
      await registerForwarder(db(), { host: "web-3", url: "http://web-3:7480/", secret: SECRET }, FORWARDER_TOKEN);
      const session = deriveSessionId("CoshNG", 4242, "web-3");

      await ingestCalls(db(), loopCalls("web-3", 4242, 0, 6)); // calls 5 and 6: two detections
      await action.settle();
      expect(sent).toEqual([]);

      await ingestCalls(db(), loopCalls("web-3", 4242, 6, 1)); // the third detection
      await action.settle();
      expect(sent).toHaveLength(1);
      expect(sent[0].url).toBe("http://web-3:7480/terminate");
      expect(sent[0].body).toMatchObject({ session_id: session, pid: 4242, host: "web-3", agent_name: "CoshNG", signal: "SIGTERM", detections: 3 });
      expect(verifyTerminate(SECRET, sent[0].raw, sent[0].headers["X-SightDesk-Signature"], sent[0].headers["X-SightDesk-Timestamp"], Date.now()).ok).toBe(true);

      // a re-check without a new detection (a retry, a duplicate batch) sends nothing
      await ingestCalls(db(), loopCalls("web-3", 4242, 6, 1));
      expect(await action.consider(session)).toBeNull();

      await ingestCalls(db(), loopCalls("web-3", 4242, 7, 1)); // the fourth
      await action.settle();
      expect(sent.map((s) => s.body.signal)).toEqual(["SIGTERM", "SIGKILL"]);
      await ingestCalls(db(), loopCalls("web-3", 4242, 8, 3));
      await action.settle();
      expect(sent).toHaveLength(2);

      const requests = await db().terminateRequest.findMany({ where: { sessionId: session }, orderBy: { createdAtNs: "asc" } });
      expect(requests.map((r) => [r.signal, r.detections, r.status, r.result])).toEqual([["SIGTERM", 3, "sent", "signaled"], ["SIGKILL", 4, "sent", "signaled"]]);
      const loop = await db().interruption.findFirstOrThrow({ where: { sessionId: session, type: "dead_loop" } });
      const activity = await db().interruptionActivity.findMany({ where: { interruptionId: loop.id }, orderBy: { id: "asc" } });
      expect(activity.map((a) => [a.actor, a.action, JSON.parse(a.after!).signal])).toEqual([[DEADLOOP_ACTOR, "terminate", "SIGTERM"], [DEADLOOP_ACTOR, "terminate", "SIGKILL"]]);
      expect(activity[0].note).toMatch(/^SIGTERM for pid 4242 on web-3 after 3 dead-loop detections: signaled$/);
    } finally {
      stop();
    }
  });

  it("sends the SIGTERM owed for detections whose server process stopped before it asked: the next recovery of any process does", async () => {
    const { sent, fetchImpl } = fakeForwarder();
    await registerForwarder(db(), { host: "web-9", url: "http://web-9:7480", secret: SECRET }, FORWARDER_TOKEN);
    // stored with no action listening (the process that stored them was killed after its commit)
    const now = BigInt(Date.now()) * 1_000_000n;
    const calls = loopCalls("web-9", 919, 0, 7).map((c, i) => ({ ...c, start_ns: now - BigInt(10 - i) * 1_000_000_000n, end_ns: now - BigInt(10 - i) * 1_000_000_000n + 500_000_000n }));
    await ingestCalls(db(), calls);
    const session = deriveSessionId("CoshNG", 919, "web-9");
    expect(await db().terminateRequest.count({ where: { sessionId: session } })).toBe(0);
    const survivor = new DeadLoopAction({ db: db(), killAfterCount: 3, fetch: fetchImpl, log: () => undefined });
    await survivor.recoverOnce();
    await survivor.settle();
    expect(sent.map((s) => [s.body.session_id, s.body.signal, s.body.detections])).toEqual([[session, "SIGTERM", 3]]);
    // once asked, later recoveries send nothing more
    await survivor.recoverOnce();
    await survivor.settle();
    expect(sent).toHaveLength(1);
  });

  it("sends one request when several checks race (the record's insert is the guard)", async () => {
    const { sent, fetchImpl } = fakeForwarder();
    const a = new DeadLoopAction({ db: db(), killAfterCount: 3, fetch: fetchImpl, log: () => undefined });
    const b = new DeadLoopAction({ db: db(), killAfterCount: 3, fetch: fetchImpl, log: () => undefined });
    await registerForwarder(db(), { host: "web-4", url: "http://web-4:7480", secret: SECRET }, FORWARDER_TOKEN);
    await ingestCalls(db(), loopCalls("web-4", 777, 0, 7));
    const session = deriveSessionId("CoshNG", 777, "web-4");
    const outcomes = await Promise.all([a.consider(session), b.consider(session), a.consider(session)]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    await Promise.all([a.settle(), b.settle()]); // the losers look again: nothing more is due
    expect(sent.map((s) => s.body.signal)).toEqual(["SIGTERM"]);
  });

  it("records a request it cannot deliver, and what the forwarder refused", async () => {
    const log: string[] = [];
    const { sent, fetchImpl } = fakeForwarder(() => Response.json({ error: "pid 888 is not a process this forwarder has forwarded calls for" }, { status: 403 }));
    const action = new DeadLoopAction({ db: db(), killAfterCount: 3, fetch: fetchImpl, log: (m) => log.push(m) });
    await ingestCalls(db(), loopCalls("no-forwarder", 888, 0, 7));
    const lonely = await action.consider(deriveSessionId("CoshNG", 888, "no-forwarder"));
    expect(lonely).toMatchObject({ signal: "SIGTERM", status: "failed", result: "no forwarder is registered for host no-forwarder" });
    expect(sent).toEqual([]);

    await registerForwarder(db(), { host: "web-5", url: "http://web-5:7480", secret: SECRET }, FORWARDER_TOKEN);
    await ingestCalls(db(), loopCalls("web-5", 888, 0, 7));
    const refused = await action.consider(deriveSessionId("CoshNG", 888, "web-5"));
    // the forwarder's own words are not stored: the status, and what it means in ours
    expect(refused).toMatchObject({ status: "failed", result: "HTTP 403 (not a process this forwarder has forwarded calls for)" });
    expect(log).toHaveLength(2);

    // a forwarder URL that answers with anything but the protocol's JSON: only "accepted" is kept
    const chatty = fakeForwarder(() => new Response("<html>internal admin page: token=abc</html>", { status: 200 }));
    const quiet = new DeadLoopAction({ db: db(), killAfterCount: 3, fetch: chatty.fetchImpl, log: () => undefined });
    await registerForwarder(db(), { host: "web-7", url: "http://web-7:7480", secret: SECRET }, FORWARDER_TOKEN);
    await ingestCalls(db(), loopCalls("web-7", 889, 0, 7));
    expect(await quiet.consider(deriveSessionId("CoshNG", 889, "web-7"))).toMatchObject({ status: "sent", result: "accepted" });
    const failing = fakeForwarder(() => new Response("stack trace with secrets", { status: 500 }));
    const sad = new DeadLoopAction({ db: db(), killAfterCount: 3, fetch: failing.fetchImpl, log: () => undefined });
    await ingestCalls(db(), loopCalls("web-7", 890, 0, 7));
    expect(await sad.consider(deriveSessionId("CoshNG", 890, "web-7"))).toMatchObject({ status: "failed", result: "HTTP 500" });
    const rows = await db().terminateRequest.findMany({ where: { host: "web-7" } });
    const notes = await db().interruptionActivity.findMany({ where: { actor: DEADLOOP_ACTOR } });
    expect(JSON.stringify(rows.map((r) => [r.status, r.result])) + JSON.stringify(notes.map((n) => [n.note, n.after]))).not.toMatch(/internal admin|stack trace/);
  });
  it("completes a request whose server process died mid-send: once its claim expires, sent again with its id, or failed when too old", async () => {
    const SEC = 1_000_000_000n;
    /** A request left pending by process A, stuck mid-send (its forwarder call never returns), as a killed process leaves it. */
    async function abandoned(host: string, pid: number) {
      const stuck = new DeadLoopAction({ db: db(), killAfterCount: 3, holder: "A", log: () => undefined, fetch: () => new Promise<Response>(() => undefined) });
      await registerForwarder(db(), { host, url: `http://${host}:7480`, secret: SECRET }, FORWARDER_TOKEN);
      await ingestCalls(db(), loopCalls(host, pid, 0, 7));
      const sessionId = deriveSessionId("CoshNG", pid, host);
      void stuck.consider(sessionId);
      for (;;) {
        const row = await db().terminateRequest.findFirst({ where: { sessionId } });
        if (row) return row;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const row = await abandoned("web-8", 901);
    expect(row).toMatchObject({ status: "pending", claimedBy: "A", signal: "SIGTERM" });
    const forwarder = fakeForwarder((p) => (p.host === "web-9" ? Response.json({ error: "handled already" }, { status: 409 }) : Response.json({ result: "signaled" })));
    let clock = row.createdAtNs + SEC;
    const b = new DeadLoopAction({ db: db(), killAfterCount: 3, holder: "B", fetch: forwarder.fetchImpl, log: () => undefined, now: () => clock });
    expect(await b.recover()).toBe(0); // A's claim holds for its timeout and a margin
    expect(forwarder.sent).toEqual([]);

    clock = row.createdAtNs + 11n * SEC;
    expect(await b.recover()).toBe(1);
    expect(forwarder.sent.map((s) => [s.body.request_id, s.body.signal, s.body.pid])).toEqual([[row.id, "SIGTERM", 901]]);
    expect(await db().terminateRequest.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: "sent", result: "signaled", claimedBy: null });
    const [note] = await db().interruptionActivity.findMany({ where: { interruptionId: row.interruptionId, actor: DEADLOOP_ACTOR } });
    expect(note.note).toBe("SIGTERM for pid 901 on web-8 after 3 dead-loop detections: signaled (completed by another server process: the one sending it stopped)");
    expect(await b.recover()).toBe(0);

    // A's send got through before it died: the forwarder refuses the repeat, the signal went once
    const delivered = await abandoned("web-9", 902);
    clock = delivered.createdAtNs + 11n * SEC;
    expect(await b.recover()).toBe(1);
    expect(await db().terminateRequest.findUniqueOrThrow({ where: { id: delivered.id } })).toMatchObject({ status: "sent", result: "already_handled" });

    // too old for the forwarder's clock window: recorded as failed, not sent
    const old = await abandoned("web-10", 903);
    clock = old.createdAtNs + 31n * SEC;
    const before = forwarder.sent.length;
    expect(await b.recover()).toBe(1);
    expect(forwarder.sent).toHaveLength(before);
    expect(await db().terminateRequest.findUniqueOrThrow({ where: { id: old.id } })).toMatchObject({ status: "failed", result: expect.stringMatching(/stopped, and it is too old/) });

    // each claim runs from when it is taken: a slow send before it does not shorten it
    const first = await abandoned("web-11", 904);
    const second = await abandoned("web-12", 905);
    clock = second.createdAtNs + 11n * SEC;
    const claimedAt: bigint[] = [];
    const slow = new DeadLoopAction({
      db: db(), killAfterCount: 3, holder: "C", log: () => undefined, now: () => clock,
      fetch: async (url: string) => {
        claimedAt.push(clock);
        if (url.includes("web-12")) return new Promise<Response>(() => undefined); // C stops mid-send here
        clock += 5n * SEC; // the first send takes its whole timeout
        return Response.json({ result: "signaled" });
      },
    });
    void slow.recover();
    const held = await eventually("the second request claimed by C", () => db().terminateRequest.findUniqueOrThrow({ where: { id: second.id } }), (r) => r.claimedBy === "C");
    expect(claimedAt).toHaveLength(2);
    expect(held.claimExpiresAtNs).toBe(claimedAt[1] + 10n * SEC); // from the clock after the first send, not before it
    expect((await db().terminateRequest.findUniqueOrThrow({ where: { id: first.id } })).status).toBe("sent");

    // the timer's recoveries do not overlap: while one is still sending, the next does nothing
    const third = await abandoned("web-15", 908);
    clock = third.createdAtNs + 11n * SEC;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    const d = new DeadLoopAction({ db: db(), killAfterCount: 3, holder: "D", log: () => undefined, now: () => clock, fetch: () => gate.then(() => Response.json({ result: "signaled" })) });
    const running = d.recoverOnce();
    await eventually("D sending", () => db().terminateRequest.count({ where: { claimedBy: "D" } }), (n) => n > 0);
    expect(await d.recoverOnce()).toBeNull();
    open();
    expect(await running).toBeGreaterThanOrEqual(1);
    expect(await db().terminateRequest.findUniqueOrThrow({ where: { id: third.id } })).toMatchObject({ status: "sent" });
  });

  it("sends SIGKILL only once the SIGTERM is recorded, whichever server process sees the detection that calls for it", async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    // A's forwarder is slow to answer the SIGTERM
    const a = new DeadLoopAction({
      db: db(), killAfterCount: 3, holder: "A", log: () => undefined,
      fetch: async (_url: string, init: RequestInit) => {
        const { signal } = JSON.parse(String(init.body)) as TerminatePayload;
        order.push(signal);
        if (signal === "SIGTERM") await held;
        return Response.json({ result: "signaled" });
      },
    });
    const other = fakeForwarder();
    const b = new DeadLoopAction({ db: db(), killAfterCount: 3, holder: "B", fetch: other.fetchImpl, log: () => undefined });
    await registerForwarder(db(), { host: "web-13", url: "http://web-13:7480", secret: SECRET }, FORWARDER_TOKEN);
    await ingestCalls(db(), loopCalls("web-13", 906, 0, 7)); // three detections: SIGTERM
    const session = deriveSessionId("CoshNG", 906, "web-13");
    a.notify([session]);
    await eventually("A sending the SIGTERM", () => order.length, (n) => n === 1);
    await ingestCalls(db(), loopCalls("web-13", 906, 7, 1)); // the fourth, ingested by B while A sends
    expect(await b.consider(session)).toBeNull(); // before, B sent SIGKILL: it could reach the process first
    expect(other.sent).toEqual([]);
    release();
    await a.settle(); // A, once the SIGTERM is recorded, looks at the process again
    expect(order).toEqual(["SIGTERM", "SIGKILL"]);
    const rows = await db().terminateRequest.findMany({ where: { sessionId: session }, orderBy: { createdAtNs: "asc" } });
    expect(rows.map((r) => [r.signal, r.detections, r.status])).toEqual([["SIGTERM", 3, "sent"], ["SIGKILL", 4, "sent"]]);
  });

  it("does not drop the SIGKILL a detection calls for when another server process won the SIGTERM", async () => {
    const { sent, fetchImpl } = fakeForwarder();
    await registerForwarder(db(), { host: "web-14", url: "http://web-14:7480", secret: SECRET }, FORWARDER_TOKEN);
    await ingestCalls(db(), loopCalls("web-14", 907, 0, 8)); // four detections
    const session = deriveSessionId("CoshNG", 907, "web-14");
    // A decided SIGTERM at three detections, as B read no request yet; A's insert came first
    await db().terminateRequest.create({
      data: { id: "won-by-a", sessionId: session, host: "web-14", pid: 907, signal: "SIGTERM", interruptionId: (await db().interruption.findFirstOrThrow({ where: { sessionId: session } })).id, detections: 3, createdAtNs: BASE, status: "sent", result: "signaled", completedAtNs: BASE },
    });
    // B read the requests before that insert: it decides SIGTERM too, and its insert fails
    let stale = true;
    const requests = new Proxy(db().terminateRequest, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop);
        if (prop === "findMany" && stale) return async () => ((stale = false), []);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const staleDb = new Proxy(db(), { get: (target, prop) => (prop === "terminateRequest" ? requests : Reflect.get(target, prop)) });
    const b = new DeadLoopAction({ db: staleDb, killAfterCount: 3, holder: "B", fetch: fetchImpl, log: () => undefined });
    expect(await b.consider(session)).toBeNull();
    await b.settle(); // before, the SIGKILL waited for a detection that might never come
    expect(sent.map((s) => [s.body.signal, s.body.detections])).toEqual([["SIGKILL", 4]]);
  });

  it("lets only the registering token, or an admin, point a host's forwarder elsewhere", async () => {
    const host = { host: "web-6", url: "http://web-6:7480", secret: SECRET };
    await registerForwarder(db(), host, FORWARDER_TOKEN);
    // the same token re-registers after a restart: new URL and key
    expect(await registerForwarder(db(), { ...host, url: "http://web-6:7481" }, FORWARDER_TOKEN)).toMatchObject({ url: "http://web-6:7481", registered_by: "token:fwd" });
    const other: Actor = { kind: "token", id: "tok-other", name: "fwd", scopes: ["ingest", "forwarder"] };
    await expect(registerForwarder(db(), { ...host, url: "http://evil:1" }, other)).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/^host: the forwarder of web-6 was registered by token:fwd/) });
    expect((await db().forwarder.findUnique({ where: { host: "web-6" } }))?.url).toBe("http://web-6:7481");
    const admin: Actor = { kind: "user", id: "u-1", name: "ops@example.com", scopes: ["read", "triage", "ingest", "forwarder", "admin"], role: "admin" };
    expect(await registerForwarder(db(), { ...host, url: "http://web-6:9000" }, admin)).toMatchObject({ url: "http://web-6:9000", registered_by: "user:ops@example.com" });
  });
});
