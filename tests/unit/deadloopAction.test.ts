// The dead-loop action (SPEC §7): the decision (detections → nothing / SIGTERM / SIGKILL), the
// signed request and the forwarder's checks, and the server side against a real SQLite database
// with a fake forwarder: one request per signal, recorded, visible in the interruption's activity.
import type { Actor } from "@/lib/api/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signBody } from "@/lib/alerts/rules";
import { createDb, type Db } from "@/lib/db/client";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { DeadLoopAction, DEADLOOP_ACTOR } from "@/lib/deadloop/action";
import { ForwardedProcesses, startControl, type ControlServer } from "@/lib/deadloop/control";
import { registerForwarder } from "@/lib/deadloop/forwarders";
import { MAX_SKEW_MS, nextSignal, verifyTerminate, type TerminatePayload } from "@/lib/deadloop/protocol";
import { onDeadLoopDetections } from "@/lib/ingest/afterCommit";
import { callSchema } from "@/lib/ingest/schema";
import { deriveSessionId } from "@/lib/ingest/keys";
import { ingestCalls } from "@/lib/ingest/storeCalls";

const SECRET = "k".repeat(64);
/** The ingest token a forwarder registers with. */
const FORWARDER_TOKEN: Actor = { kind: "token", id: "tok-fwd", name: "fwd", scopes: ["ingest"] };

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
  it("accepts a request signed with the key, within the window", () => {
    const body = JSON.stringify(payload({ issued_at_ms: now - 5000 }));
    expect(verifyTerminate(SECRET, body, signBody(SECRET, body), now)).toMatchObject({ ok: true, payload: { pid: 4242, signal: "SIGTERM" } });
  });

  it("refuses a bad, missing or foreign signature and a tampered body with 401", () => {
    const body = JSON.stringify(payload());
    expect(verifyTerminate(SECRET, body, undefined, now)).toMatchObject({ ok: false, status: 401 });
    expect(verifyTerminate(SECRET, body, "sha256=00", now)).toMatchObject({ ok: false, status: 401 });
    expect(verifyTerminate(SECRET, body, signBody("another key", body), now)).toMatchObject({ ok: false, status: 401 });
    const tampered = body.replace('"pid":4242', '"pid":1');
    expect(verifyTerminate(SECRET, tampered, signBody(SECRET, body), now)).toMatchObject({ ok: false, status: 401 });
  });

  it("refuses an old (replayed) or future-dated request with 401", () => {
    for (const at of [now - MAX_SKEW_MS - 1, now + MAX_SKEW_MS + 1]) {
      const body = JSON.stringify(payload({ issued_at_ms: at }));
      expect(verifyTerminate(SECRET, body, signBody(SECRET, body), now)).toMatchObject({ ok: false, status: 401, error: expect.stringMatching(/window/) });
    }
  });

  it("refuses a well-signed body of the wrong shape with 400", () => {
    const body = JSON.stringify({ ...payload(), signal: "SIGHUP" });
    expect(verifyTerminate(SECRET, body, signBody(SECRET, body), now)).toMatchObject({ ok: false, status: 400, error: expect.stringMatching(/^signal/) });
  });
});

describe("the forwarder's control listener", () => {
  let control: ControlServer;
  const kills: Array<[number, string]> = [];
  const processes = new ForwardedProcesses("web-3");
  processes.add([
    { call_id: "a", session_id: "s-1", pid: 4242 },
    { call_id: "b", agent_name: "CoshNG", pid: 5151 }, // no session id: derived from agent + pid + this host
    { call_id: "c", session_id: "s-gone", pid: 6161 },
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

  async function post(body: string, signature: string | null, route = "/terminate") {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (signature) headers["x-sightdesk-signature"] = signature;
    const res = await fetch(`${control.url}${route}`, { method: "POST", headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const signed = (p: TerminatePayload) => {
    const body = JSON.stringify(p);
    return post(body, signBody(SECRET, body));
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
    expect((await post(body, signBody("wrong", body))).status).toBe(401);
    expect((await post(body, null)).status).toBe(401);
    expect((await post(body, signBody(SECRET, body))).status).toBe(200);
    expect(await post(body, signBody(SECRET, body))).toMatchObject({ status: 409, body: { error: expect.stringMatching(/handled already/) } });
    expect((await signed(payload({ issued_at_ms: Date.now() - 10 * 60_000 }))).status).toBe(401);
    expect((await post(body, signBody(SECRET, body), "/other")).status).toBe(404);
    expect(kills).toEqual([[4242, "SIGTERM"]]);
  });
});

describe("DeadLoopAction (server side)", () => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase("deadloop");
    db = createDb(database.url);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

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
    const action = new DeadLoopAction({ db, killAfterCount: 3, fetch: fetchImpl, log: () => undefined });
    const stop = onDeadLoopDetections((ids) => action.notify(ids));
    try {
      await registerForwarder(db, { host: "web-3", url: "http://web-3:7480/", secret: SECRET }, FORWARDER_TOKEN);
      const session = deriveSessionId("CoshNG", 4242, "web-3");

      await ingestCalls(db, loopCalls("web-3", 4242, 0, 6)); // calls 5 and 6: two detections
      await action.settle();
      expect(sent).toEqual([]);

      await ingestCalls(db, loopCalls("web-3", 4242, 6, 1)); // the third detection
      await action.settle();
      expect(sent).toHaveLength(1);
      expect(sent[0].url).toBe("http://web-3:7480/terminate");
      expect(sent[0].body).toMatchObject({ session_id: session, pid: 4242, host: "web-3", agent_name: "CoshNG", signal: "SIGTERM", detections: 3 });
      expect(verifyTerminate(SECRET, sent[0].raw, sent[0].headers["X-SightDesk-Signature"], Date.now()).ok).toBe(true);

      // a re-check without a new detection (a retry, a duplicate batch) sends nothing
      await ingestCalls(db, loopCalls("web-3", 4242, 6, 1));
      expect(await action.consider(session)).toBeNull();

      await ingestCalls(db, loopCalls("web-3", 4242, 7, 1)); // the fourth
      await action.settle();
      expect(sent.map((s) => s.body.signal)).toEqual(["SIGTERM", "SIGKILL"]);
      await ingestCalls(db, loopCalls("web-3", 4242, 8, 3));
      await action.settle();
      expect(sent).toHaveLength(2);

      const requests = await db.terminateRequest.findMany({ where: { sessionId: session }, orderBy: { createdAtNs: "asc" } });
      expect(requests.map((r) => [r.signal, r.detections, r.status, r.result])).toEqual([["SIGTERM", 3, "sent", "signaled"], ["SIGKILL", 4, "sent", "signaled"]]);
      const loop = await db.interruption.findFirstOrThrow({ where: { sessionId: session, type: "dead_loop" } });
      const activity = await db.interruptionActivity.findMany({ where: { interruptionId: loop.id }, orderBy: { id: "asc" } });
      expect(activity.map((a) => [a.actor, a.action, JSON.parse(a.after!).signal])).toEqual([[DEADLOOP_ACTOR, "terminate", "SIGTERM"], [DEADLOOP_ACTOR, "terminate", "SIGKILL"]]);
      expect(activity[0].note).toMatch(/^SIGTERM for pid 4242 on web-3 after 3 dead-loop detections: signaled$/);
    } finally {
      stop();
    }
  });

  it("sends one request when several checks race (the record's insert is the guard)", async () => {
    const { sent, fetchImpl } = fakeForwarder();
    const a = new DeadLoopAction({ db, killAfterCount: 3, fetch: fetchImpl, log: () => undefined });
    const b = new DeadLoopAction({ db, killAfterCount: 3, fetch: fetchImpl, log: () => undefined });
    await registerForwarder(db, { host: "web-4", url: "http://web-4:7480", secret: SECRET }, FORWARDER_TOKEN);
    await ingestCalls(db, loopCalls("web-4", 777, 0, 7));
    const session = deriveSessionId("CoshNG", 777, "web-4");
    const outcomes = await Promise.all([a.consider(session), b.consider(session), a.consider(session)]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(sent.map((s) => s.body.signal)).toEqual(["SIGTERM"]);
  });

  it("records a request it cannot deliver, and what the forwarder refused", async () => {
    const log: string[] = [];
    const { sent, fetchImpl } = fakeForwarder(() => Response.json({ error: "pid 888 is not a process this forwarder has forwarded calls for" }, { status: 403 }));
    const action = new DeadLoopAction({ db, killAfterCount: 3, fetch: fetchImpl, log: (m) => log.push(m) });
    await ingestCalls(db, loopCalls("no-forwarder", 888, 0, 7));
    const lonely = await action.consider(deriveSessionId("CoshNG", 888, "no-forwarder"));
    expect(lonely).toMatchObject({ signal: "SIGTERM", status: "failed", result: "no forwarder is registered for host no-forwarder" });
    expect(sent).toEqual([]);

    await registerForwarder(db, { host: "web-5", url: "http://web-5:7480", secret: SECRET }, FORWARDER_TOKEN);
    await ingestCalls(db, loopCalls("web-5", 888, 0, 7));
    const refused = await action.consider(deriveSessionId("CoshNG", 888, "web-5"));
    expect(refused).toMatchObject({ status: "failed", result: expect.stringMatching(/^HTTP 403: .*not a process this forwarder/) });
    expect(log).toHaveLength(2);
  });
  it("lets only the registering token, or an admin, point a host's forwarder elsewhere", async () => {
    const host = { host: "web-6", url: "http://web-6:7480", secret: SECRET };
    await registerForwarder(db, host, FORWARDER_TOKEN);
    // the same token re-registers after a restart: new URL and key
    expect(await registerForwarder(db, { ...host, url: "http://web-6:7481" }, FORWARDER_TOKEN)).toMatchObject({ url: "http://web-6:7481", registered_by: "token:fwd" });
    const other: Actor = { kind: "token", id: "tok-other", name: "fwd", scopes: ["ingest"] };
    await expect(registerForwarder(db, { ...host, url: "http://evil:1" }, other)).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/^host: the forwarder of web-6 was registered by token:fwd/) });
    expect((await db.forwarder.findUnique({ where: { host: "web-6" } }))?.url).toBe("http://web-6:7481");
    const admin: Actor = { kind: "user", id: "u-1", name: "ops@example.com", scopes: ["read", "triage", "ingest", "admin"], role: "admin" };
    expect(await registerForwarder(db, { ...host, url: "http://web-6:9000" }, admin)).toMatchObject({ url: "http://web-6:9000", registered_by: "user:ops@example.com" });
  });
});
