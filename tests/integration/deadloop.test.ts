// The dead-loop action end to end (SPEC §7): a real server with `deadloop.enabled`, the real
// `sightdesk forward` binary following an AgentSight directory, and a real child process as the
// agent whose pid is in the calls. The agent logs and ignores SIGTERM: it must get SIGTERM at the
// third dead-loop detection and die of SIGKILL at the fourth. With the action off, nothing is
// sent; the forwarder refuses badly signed requests. The forwarder's token has the scopes
// ingest,forwarder: ingest alone cannot register (or re-point) a forwarder. The servers allow
// outbound requests to 127.0.0.0/8 (outbound.allow_private), where the forwarders listen here.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signBody } from "@/lib/alerts/rules";
import type { TerminatePayload } from "@/lib/deadloop/protocol";
import { createToken, expectError, request, sleep, type Activity, type InterruptionRecord } from "./support/http";
import { startServer, type TestServer } from "./support/server";
import { waitFor } from "../support/waitFor";

const ROOT = path.resolve(__dirname, "../..");
const BIN = path.join(ROOT, "bin/sightdesk.mjs");

let on: TestServer;
let off: TestServer;
let tmp: string;
const stops: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-deadloop-"));
  const loopback = { SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8" };
  on = await startServer({ SIGHTDESK_DEADLOOP__ENABLED: "true", SIGHTDESK_DEADLOOP__KILL_AFTER_COUNT: "3", ...loopback });
  off = await startServer(loopback);
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await on?.stop();
  await off?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

type Proc = { child: ChildProcess; output: () => string };

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Proc {
  let output = "";
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  stops.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
  });
  return { child, output: () => output };
}

/** The "agent": logs every SIGTERM and carries on; only SIGKILL ends it. */
async function startAgent(): Promise<Proc> {
  const agent = run(["-e", 'process.on("SIGTERM", () => console.log("got SIGTERM, carrying on")); console.log("ready"); setInterval(() => {}, 1000);']);
  await waitFor("the agent to start", () => agent.output().includes("ready"));
  return agent;
}

/** An AgentSight directory (genai_events.db with the columns used here), open for writing like the daemon has it. */
function agentSightDir(name: string): { dir: string; genai: Database.Database } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const genai = new Database(path.join(dir, "genai_events.db"));
  genai.exec(`CREATE TABLE genai_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, event_type TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'complete',
    call_id TEXT, conversation_id TEXT, session_id TEXT, start_timestamp_ns INTEGER NOT NULL, end_timestamp_ns INTEGER,
    pid INTEGER, process_name TEXT, agent_name TEXT, provider TEXT, model TEXT, finish_reasons TEXT, status_code INTEGER,
    is_sse INTEGER, input_messages TEXT, output_messages TEXT, event_json TEXT NOT NULL)`);
  stops.push(() => void genai.close());
  return { dir, genai };
}

const BASE_NS = BigInt(Date.now() - 600_000) * 1_000_000n;

/** Calls `from … from+n-1` of a looping conversation: each reads package.json again (from the 5th on, each is a detection). */
function writeLoopCalls(genai: Database.Database, session: string, pid: number, from: number, n: number): void {
  const insert = genai.prepare(
    `INSERT INTO genai_events (event_type, call_id, conversation_id, session_id, start_timestamp_ns, end_timestamp_ns, pid,
       process_name, agent_name, provider, model, finish_reasons, status_code, is_sse, input_messages, output_messages, event_json)
     VALUES ('llm_call', ?, ?, ?, ?, ?, ?, 'node', 'LoopAgent', 'openai', 'gpt-4o', '["tool_calls"]', 200, 0, ?, ?, '{}')`,
  );
  for (let i = from; i < from + n; i++) {
    const start = BASE_NS + BigInt(i) * 1_000_000_000n;
    insert.run(
      `${session}-call-${i}`, `${session}-conv`, session, start, start + 400_000_000n, pid,
      JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Fix the failing build" }] }]),
      JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: `${session}-tc-${i}`, name: "read_file", arguments: { path: "package.json" } }] }]),
    );
  }
}

/** The real `sightdesk forward` binary, with a control listener on a free port (the token: ingest,forwarder unless given). */
function runForwarder(server: TestServer, dir: string, host: string, token: string): Proc {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const k of Object.keys(env)) if (k.startsWith("SIGHTDESK_") || k === "DATABASE_URL") delete env[k];
  return run([BIN, "forward", dir, "--url", server.url, "--token", token, "--listen", "127.0.0.1:0", "--interval", "0.2", "--host", host], env);
}

async function startForwarder(server: TestServer, dir: string, host: string): Promise<Proc> {
  const token = await createToken(server, `forwarder of ${host}`, ["ingest", "forwarder"]);
  const fwd = runForwarder(server, dir, host, token.token);
  await waitFor(`the forwarder of ${host} to register`, async () => (await forwarders(server)).some((f) => f.host === host));
  expect((await forwarders(server)).find((f) => f.host === host)?.registered_by).toBe(`token:forwarder of ${host}`);
  return fwd;
}

/** An agent, an AgentSight directory with its calls (session `loop-<name>-<pid>`) and a forwarder on host `agent-host-<name>`. */
async function scene(server: TestServer, name: string) {
  const agent = await startAgent();
  const pid = agent.child.pid!;
  const { dir, genai } = agentSightDir(name);
  const host = `agent-host-${name}`;
  const fwd = await startForwarder(server, dir, host);
  return { agent, pid, session: `loop-${name}-${pid}`, genai, host, fwd };
}

type ForwarderRecord = { host: string; url: string; registered_by: string | null };

async function forwarders(server: TestServer): Promise<ForwarderRecord[]> {
  const reply = await request<ForwarderRecord[]>(server, "GET", "/api/forwarders");
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function deadLoop(server: TestServer, session: string): Promise<InterruptionRecord | undefined> {
  const reply = await request<InterruptionRecord[]>(server, "GET", `/api/sessions/${session}/interruptions`);
  return reply.body.find((r) => r.interruption_type === "dead_loop");
}

async function activity(server: TestServer, id: string): Promise<Activity[]> {
  const reply = await request<Activity[]>(server, "GET", `/api/interruptions/${id}/activity`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const exited = (p: Proc) => p.child.exitCode !== null || p.child.signalCode !== null;

describe("dead-loop action", () => {
  it("sends SIGTERM at the third detection and SIGKILL at the fourth through the host's forwarder", async () => {
    const { agent, pid, session, genai, fwd } = await scene(on, "on");
    expect((await forwarders(on)).find((f) => f.host === "agent-host-on")).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });

    writeLoopCalls(genai, session, pid, 0, 6); // detections 1 and 2 (calls 5 and 6)
    await waitFor("two detections", async () => (await deadLoop(on, session))?.occurrences === 2);
    await sleep(500);
    expect(agent.output()).not.toContain("SIGTERM");

    writeLoopCalls(genai, session, pid, 6, 1); // the third
    await waitFor("the agent to get SIGTERM", () => agent.output().includes("got SIGTERM"), { timeoutMs: 20_000 });
    expect(exited(agent)).toBe(false);

    writeLoopCalls(genai, session, pid, 7, 1); // the fourth
    await waitFor("the agent to die", () => exited(agent), { timeoutMs: 20_000 });
    expect(agent.child.signalCode).toBe("SIGKILL");
    expect(agent.output().match(/got SIGTERM/g)).toHaveLength(1);

    const loop = (await deadLoop(on, session))!;
    expect(loop.occurrences).toBe(4);
    let entries: Activity[] = [];
    await waitFor("both requests in the activity", async () => (entries = await activity(on, loop.interruption_id)).length === 2);
    expect(entries.map((e) => [e.actor, e.action, e.after])).toEqual([
      ["sightdesk:deadloop", "terminate", { signal: "SIGTERM", pid, host: "agent-host-on", detections: 3, status: "sent", result: "signaled" }],
      ["sightdesk:deadloop", "terminate", { signal: "SIGKILL", pid, host: "agent-host-on", detections: 4, status: "sent", result: "signaled" }],
    ]);
    expect(entries[0].note).toBe(`SIGTERM for pid ${pid} on agent-host-on after 3 dead-loop detections: signaled`);
    expect(fwd.output()).toMatch(/POST \/terminate → 200 .*"signal":"SIGKILL"/);

    // more detections after SIGKILL send nothing more
    writeLoopCalls(genai, session, pid, 8, 2);
    await waitFor("six detections", async () => (await deadLoop(on, session))?.occurrences === 6);
    await sleep(500);
    expect(await activity(on, loop.interruption_id)).toHaveLength(2);
  });

  it("does nothing when deadloop.enabled is off (the default)", async () => {
    const { agent, pid, session, genai } = await scene(off, "off");
    writeLoopCalls(genai, session, pid, 0, 9); // five detections
    await waitFor("five detections", async () => (await deadLoop(off, session))?.occurrences === 5);
    await sleep(1000);
    expect(agent.output()).not.toContain("SIGTERM");
    expect(exited(agent)).toBe(false);
    expect(await activity(off, (await deadLoop(off, session))!.interruption_id)).toEqual([]);
  });

  it("the forwarder refuses a badly signed or unsigned request (its other checks: tests/db/deadloopAction.test.ts)", async () => {
    const { agent, pid, session, genai, host } = await scene(on, "refuse");
    writeLoopCalls(genai, session, pid, 0, 1); // the forwarder knows this process
    await waitFor("the call", async () => (await request(on, "GET", `/api/sessions/${session}`)).status === 200);
    const { url } = (await forwarders(on)).find((f) => f.host === host)!;

    const body = JSON.stringify({
      request_id: "r-1", session_id: session, pid, host, agent_name: "LoopAgent",
      signal: "SIGTERM", interruption_id: "x", detections: 3, issued_at_ms: Date.now(),
    } satisfies TerminatePayload);
    const ts = Math.floor(Date.now() / 1000);
    for (const signature of [signBody("not-the-key", body, ts), null]) {
      const headers: Record<string, string> = { "content-type": "application/json", "x-sightdesk-timestamp": String(ts) };
      if (signature) headers["x-sightdesk-signature"] = signature;
      const res = await fetch(`${url}/terminate`, { method: "POST", headers, body });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "bad or missing X-SightDesk-Signature or X-SightDesk-Timestamp" });
    }
    await sleep(300);
    expect(agent.output()).not.toContain("SIGTERM");
    expect(exited(agent)).toBe(false);
  });

  it("registering a forwarder needs the forwarder scope: an ingest-only token gets 403, also through `sightdesk forward`", async () => {
    const ingestOnly = await createToken(on, "ingest only", ["ingest"]);
    const forwarderOnly = await createToken(on, "forwarder only", ["forwarder"]);
    const body = { host: "scope-host", url: "http://127.0.0.1:7480", secret: "s".repeat(64) };
    expectError(await request(on, "POST", "/api/forwarders", body, ingestOnly.token), 403, /'forwarder' scope/);
    expect((await forwarders(on)).some((f) => f.host === "scope-host")).toBe(false);
    const ok = await request<ForwarderRecord>(on, "POST", "/api/forwarders", body, forwarderOnly.token);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ host: "scope-host", url: "http://127.0.0.1:7480", registered_by: "token:forwarder only" });
    // nor can the ingest-only token re-point a registered host
    expectError(await request(on, "POST", "/api/forwarders", { ...body, url: "http://127.0.0.1:1" }, ingestOnly.token), 403, /forwarder/);
    expect((await forwarders(on)).find((f) => f.host === "scope-host")?.url).toBe("http://127.0.0.1:7480");

    // the forwarder binary says what its token lacks
    const { dir } = agentSightDir("ingest-only");
    const fwd = runForwarder(on, dir, "ingest-only-host", ingestOnly.token);
    await waitFor("the registration error", () => /needs the scopes ingest,forwarder/.test(fwd.output()), { timeoutMs: 20_000 });
    expect(fwd.output()).toMatch(/cannot register the forwarder: .*'forwarder' scope/);
    expect((await forwarders(on)).some((f) => f.host === "ingest-only-host")).toBe(false);
  });

  it("a forwarder URL outside the allowed ranges is refused (400 naming url)", async () => {
    const token = await createToken(on, "fwd-url", ["ingest", "forwarder"]);
    for (const url of ["http://10.0.0.5:7480", "http://169.254.169.254", "http://[::1]:7480", "http://[::ffff:192.168.0.1]:7480"]) {
      expectError(await request(on, "POST", "/api/forwarders", { host: "url-host", url, secret: "s".repeat(64) }, token.token), 400, /^url: .*address \(allow its range in outbound\.allow_private/);
    }
    // localhost resolves to 127.0.0.1, which these servers allow
    expect((await request(on, "POST", "/api/forwarders", { host: "url-host", url: "http://localhost:7480", secret: "s".repeat(64) }, token.token)).status).toBe(200);
  });
});
