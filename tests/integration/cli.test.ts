// The `sightdesk` CLI: the real binary (bin/sightdesk.mjs) run against the real server, with
// its tables, exact JSON, triage commands, tokens, and failure messages and exit codes.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentSightFiles, insertCall, user as agentSightUser } from "../fixtures/agentsight";
import { call, ns, uid } from "./support/payloads";
import { freePort, startServer, type TestServer } from "./support/server";

const ROOT = path.resolve(__dirname, "../..");
const BIN = path.join(ROOT, "bin/sightdesk.mjs");

type Run = { code: number; stdout: string; stderr: string };
type RunOptions = { env?: Record<string, string>; auth?: boolean };

let server: TestServer;
/** an empty working directory, so no ./data/.dashboard_token is found by accident */
let cwd: string;

/** The environment without any SIGHTDESK_* setting of the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: "UTC", NO_COLOR: "1" };
  for (const k of Object.keys(env)) if (k.startsWith("SIGHTDESK_")) delete env[k];
  return { ...env, ...extra };
}

/** Runs the real binary; by default with --url and --token of the test server. */
function cli(args: string[], options: RunOptions = {}): Promise<Run> {
  const auth = options.auth ?? true;
  const argv = [BIN, ...args, ...(auth ? ["--url", server.url, "--token", server.token] : [])];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd, env: cleanEnv(options.env), timeout: 30_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The local (TZ=UTC) time the CLI prints for integer nanoseconds. */
const utc = (nsText: string) => new Date(Number(BigInt(nsText) / 1_000_000n)).toISOString().slice(0, 19).replace("T", " ");

const closedPort = freePort;

type ApiRecord = { interruption_id: string; interruption_type: string; severity: string; status: string; conversation_id: string | null };

async function records(sessionId: string): Promise<ApiRecord[]> {
  const res = await server.api(`/api/sessions/${encodeURIComponent(sessionId)}/interruptions`);
  expect(res.status).toBe(200);
  return (await res.json()) as ApiRecord[];
}

const sessionA = uid("cli-a");
const sessionB = uid("cli-b");
// 19 digits with sub-millisecond digits: a float64 would round the last ones
const EXACT_END_NS = `${ns(1500).slice(0, -6)}987654`;
let medium: ApiRecord; // rate_limit, session A
let high: ApiRecord; // llm_error, session A (exact end_ns)
let auth: ApiRecord; // auth_error, session B
let evil: ApiRecord; // service_unavailable with control characters in the agent name

beforeAll(async () => {
  server = await startServer();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-cli-"));
  const body = [
    call({ session_id: sessionA, agent_name: "CliMedium", status_code: 429, error: "slow down" }, 0),
    { ...call({ session_id: sessionA, agent_name: "CliHigh", status_code: 500, error: "boom" }, 1000), end_ns: EXACT_END_NS },
    call({ session_id: sessionB, agent_name: "CliAuth", status_code: 401, error: "bad key" }, 2000),
    call({ session_id: sessionB, agent_name: "Evil\u001b[31mAgent\u0007\u009b2J", status_code: 503, error: "\u001b]0;pwned\u0007down" }, 3000),
  ];
  const res = await server.api("/api/ingest/calls", { method: "POST", body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const a = await records(sessionA);
  const b = await records(sessionB);
  medium = a.find((r) => r.interruption_type === "rate_limit")!;
  high = a.find((r) => r.interruption_type === "llm_error")!;
  auth = b.find((r) => r.interruption_type === "auth_error")!;
  evil = b.find((r) => r.interruption_type === "service_unavailable")!;
  expect([medium, high, auth, evil].every(Boolean)).toBe(true);
});

afterAll(async () => {
  await server?.stop();
  if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
});

describe("reading", () => {
  it("lists unresolved high interruptions of the last 24 h as a table", async () => {
    const r = await cli(["interruption", "list", "--last", "24", "--severity", "high", "--unresolved"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^TIME\s+SEVERITY\s+TYPE\s+AGENT\s+SESSION\s+ID\s+STATUS$/);
    const row = lines.find((l) => l.includes(high.interruption_id));
    expect(row).toMatch(new RegExp(`^${utc(EXACT_END_NS)}\\s+high\\s+llm_error\\s+CliHigh\\s+\\S+\\s+${high.interruption_id}\\s+open$`));
    expect(r.stdout).toContain(auth.interruption_id);
    expect(r.stdout).toContain(evil.interruption_id);
    expect(r.stdout).not.toContain(medium.interruption_id);
    expect(r.stdout).toMatch(/3 interruptions, newest first/);
    // newest first
    expect(r.stdout.indexOf(evil.interruption_id)).toBeLessThan(r.stdout.indexOf(high.interruption_id));
  });

  it("strips terminal control characters from server strings", async () => {
    const list = await cli(["interruption", "list"]);
    const get = await cli(["interruption", "get", evil.interruption_id]);
    for (const out of [list.stdout, get.stdout]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(out).toContain("Evil[31mAgent");
    }
    // --json stays valid JSON with the same value, C1 characters escaped
    const json = await cli(["interruption", "get", evil.interruption_id, "--json"]);
    expect(json.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect((JSON.parse(json.stdout) as { agent_name: string }).agent_name).toBe("Evil\u001b[31mAgent\u0007\u009b2J");
  });

  it("prints the server's JSON with 19-digit nanoseconds exact", async () => {
    const r = await cli(["interruption", "list", "--severity", "high", "--json"]);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.stdout) as ApiRecord[];
    expect(parsed.map((x) => x.interruption_id).sort()).toEqual([high.interruption_id, auth.interruption_id, evil.interruption_id].sort());
    expect(EXACT_END_NS).toMatch(/^\d{19}$/);
    expect(r.stdout).toContain(`"occurred_at_ns":${EXACT_END_NS}`);
    const one = await cli(["interruption", "get", high.interruption_id, "--json"]);
    expect(one.stdout).toContain(`"occurred_at_ns":${EXACT_END_NS}`);
  });

  it("says clearly when nothing matches", async () => {
    const r = await cli(["interruption", "list", "--type", "dead_loop,agent_crash", "--last", "2"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("No interruptions in the last 2 h matching type=dead_loop,agent_crash.");
  });

  it("pages with --limit and says more may match", async () => {
    const r = await cli(["interruption", "list", "--limit", "1"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(evil.interruption_id);
    expect(r.stdout).not.toContain(auth.interruption_id);
    expect(r.stdout).toMatch(/more may match/);
  });

  it("filters by agent, session and conversation", async () => {
    const byAgent = await cli(["interruption", "list", "--agent", "CliAuth"]);
    expect(byAgent.stdout).toContain(auth.interruption_id);
    expect(byAgent.stdout).not.toContain(high.interruption_id);
    const bySession = await cli(["interruption", "list", "--session", sessionA, "--json"]);
    expect((JSON.parse(bySession.stdout) as ApiRecord[]).map((x) => x.interruption_id).sort()).toEqual([medium.interruption_id, high.interruption_id].sort());
  });

  it("counts unresolved interruptions by severity", async () => {
    const r = await cli(["interruption", "count"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^SEVERITY\s+COUNT$/m);
    expect(r.stdout).toMatch(/^critical\s+0$/m);
    expect(r.stdout).toMatch(/^high\s+3$/m);
    expect(r.stdout).toMatch(/^medium\s+1$/m);
    expect(r.stdout).toMatch(/^TOTAL\s+4$/m);
    const json = await cli(["interruption", "count", "--agent", "CliAuth", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ total: 1, by_severity: { critical: 0, high: 1, medium: 0, low: 0 } });
  });

  it("shows stats by type and severity", async () => {
    const r = await cli(["interruption", "stats"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^TYPE\s+SEVERITY\s+COUNT$/m);
    expect(r.stdout).toMatch(/^llm_error\s+high\s+1$/m);
    expect(r.stdout).toMatch(/^rate_limit\s+medium\s+1$/m);
    expect(r.stdout).toMatch(/^auth_error\s+high\s+1$/m);
    expect(r.stdout).toMatch(/^TOTAL\s+4$/m);
  });

  it("gets every field of one interruption by its full id, detail pretty-printed", async () => {
    const r = await cli(["interruption", "get", high.interruption_id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^interruption_id:\\s+${high.interruption_id}$`, "m"));
    expect(r.stdout).toMatch(new RegExp(`^session_id:\\s+${sessionA}$`, "m"));
    expect(r.stdout).toMatch(/^agent_name:\s+CliHigh$/m);
    expect(r.stdout).toMatch(/^severity:\s+high$/m);
    expect(r.stdout).toContain(`occurred_at_ns:    ${EXACT_END_NS} (${utc(EXACT_END_NS)})`);
    for (const field of ["trace_id", "conversation_id", "call_id", "pid", "resolved", "status", "assignee", "acknowledged_by", "resolved_by", "resolved_at_ns", "occurrences", "last_seen_ns", "fingerprint"]) {
      expect(r.stdout).toMatch(new RegExp(`^${field}:`, "m"));
    }
    expect(r.stdout).toMatch(/^detail:\n {2}\{\n {4}"status_code": 500,/m);
    expect(r.stdout).toContain('"message": "boom"');
  });

  it("lists a session's and a conversation's interruptions, oldest first", async () => {
    const r = await cli(["interruption", "session", sessionA]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Interruptions in session ${sessionA}, oldest first`);
    expect(r.stdout.indexOf(medium.interruption_id)).toBeGreaterThan(0);
    expect(r.stdout.indexOf(medium.interruption_id)).toBeLessThan(r.stdout.indexOf(high.interruption_id));
    expect(r.stdout).not.toContain(auth.interruption_id);
    const conv = await cli(["interruption", "conversation", auth.conversation_id!]);
    expect(conv.code).toBe(0);
    expect(conv.stdout).toContain(auth.interruption_id);
    const none = await cli(["interruption", "session", "no-such-session"]);
    expect(none.stdout.trim()).toBe("No interruptions in session no-such-session.");
  });

  it("lists all of a session's interruptions past the server's page of 5,000, following its Link header", async () => {
    const big = uid("cli-big");
    // two days ago: out of the other tests' default 24-hour lists
    const calls = Array.from({ length: 5_003 }, (_, i) => call({ session_id: big, conversation_id: `${big}-c${i}`, agent_name: "CliBig", status_code: 500, error: "boom" }, i - 2 * 86_400_000));
    expect((await server.api("/api/ingest/calls", { method: "POST", body: JSON.stringify(calls) })).status).toBe(200);
    const json = await cli(["interruption", "session", big, "--json"]);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { call_id: string }[];
    // before: the first 5,000, as if that were all
    expect(listed).toHaveLength(5_003);
    expect(new Set(listed.map((r) => r.call_id)).size).toBe(5_003);
    expect((await cli(["interruption", "session", big])).stdout).toMatch(/^5003 interruptions\.$/m);
  }, 60_000);
});

describe("triage", () => {
  it("acknowledges an interruption", async () => {
    const r = await cli(["interruption", "acknowledge", auth.interruption_id, "--note", "looking"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Acknowledged ${auth.interruption_id} .*status: acknowledged`));
    expect((await records(sessionB)).find((x) => x.interruption_id === auth.interruption_id)?.status).toBe("acknowledged");
  });

  it("resolves an interruption, which then leaves the unresolved list", async () => {
    const r = await cli(["interruption", "resolve", high.interruption_id, "--note", "provider fixed"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`Resolved ${high.interruption_id}.`);
    const unresolved = await cli(["interruption", "list", "--last", "24", "--severity", "high", "--unresolved"]);
    expect(unresolved.stdout).not.toContain(high.interruption_id);
    expect(unresolved.stdout).toContain(auth.interruption_id);
    const resolved = await cli(["interruption", "list", "--resolved"]);
    expect(resolved.stdout).toContain(high.interruption_id);
    // idempotent
    expect((await cli(["interruption", "resolve", high.interruption_id])).code).toBe(0);
    // acknowledging a resolved one passes the server's 409 message through
    const ack = await cli(["interruption", "acknowledge", high.interruption_id]);
    expect(ack.code).toBe(1);
    expect(ack.stderr).toMatch(/^error: .*resolved/m);
  });
});

describe("tokens", () => {
  it("creates a read token that can read but not resolve, lists and revokes it", async () => {
    const created = await cli(["token", "create", "--name", "cli-reader", "--scope", "read"]);
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/will not be shown again/);
    const secret = /^\s+([0-9a-f]{64})$/m.exec(created.stdout)?.[1];
    const id = /\(id ([^)]+)\)/.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(id).toBeDefined();

    const read = await cli(["interruption", "count", "--url", server.url, "--token", secret!], { auth: false });
    expect(read.code).toBe(0);
    const denied = await cli(["interruption", "resolve", auth.interruption_id, "--url", server.url, "--token", secret!], { auth: false });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/This token lacks the 'triage' scope/);
    expect((await records(sessionB)).find((x) => x.interruption_id === auth.interruption_id)?.status).toBe("acknowledged");

    const listed = await cli(["token", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+SCOPES\s+CREATED\s+EXPIRES\s+LAST USED\s+STATUS$/m);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+cli-reader\\s+read\\s+.*active$`, "m"));
    expect(listed.stdout).not.toContain(secret);

    const revoked = await cli(["token", "revoke", id!]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked token 'cli-reader' (id ${id})`);
    expect((await cli(["token", "list"])).stdout).toMatch(new RegExp(`^${id}\\s+cli-reader\\s+.*revoked$`, "m"));
    const after = await cli(["interruption", "count", "--url", server.url, "--token", secret!], { auth: false });
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/Token rejected/);
  });

  it("passes the server's 400 message through", async () => {
    const r = await cli(["token", "create", "--name", "old", "--scope", "read", "--expires", "2020-01-01T00:00:00Z"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: expires_at: must be in the future$/m);
  });

  it("reports an unknown token id", async () => {
    const r = await cli(["token", "revoke", "no-such-token"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Token not found: no-such-token/);
  });
});

describe("where the server and token come from", () => {
  it("reads SIGHTDESK_URL and SIGHTDESK_TOKEN", async () => {
    const r = await cli(["interruption", "count", "--json"], { auth: false, env: { SIGHTDESK_URL: server.url, SIGHTDESK_TOKEN: server.token } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty("total");
  });

  it("reads the local token file from SIGHTDESK_DATA_DIR", async () => {
    const r = await cli(["interruption", "list", "--url", server.url], { auth: false, env: server.env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(auth.interruption_id);
  });

  it("sends the local token file (an all-scope token) only to a server on this machine", async () => {
    // the same server under a name that is not local: refused before anything is sent
    const remote = server.url.replace("127.0.0.1", "sightdesk.example.test");
    const r = await cli(["interruption", "list", "--url", remote], { auth: false, env: server.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No API token for http:\/\/sightdesk\.example\.test:\d+: pass --token or set SIGHTDESK_TOKEN \(the local token file .* is sent only to a server on this machine\)/);
    const local = await cli(["interruption", "count", "--url", server.url.replace("127.0.0.1", "localhost")], { auth: false, env: server.env });
    expect(local.code, local.stderr).toBe(0);
  });

  it("--token wins over SIGHTDESK_TOKEN", async () => {
    const r = await cli(["interruption", "count", "--url", server.url, "--token", "0".repeat(64)], { auth: false, env: { SIGHTDESK_TOKEN: server.token } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Token rejected .*--token/);
  });

  it("says how to give a token when there is none (usage error)", async () => {
    const r = await cli(["interruption", "count", "--url", server.url], { auth: false });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No API token: pass --token, set SIGHTDESK_TOKEN/);
  });
});

describe("demo", () => {
  it("sends the demo's traffic to a server, which detects its interruptions; sent again, nothing changes", async () => {
    const fresh = await startServer(); // its own: the demo's interruptions would fill the other tests' lists
    try {
      const send = () => cli(["demo", "--json", "--url", fresh.url, "--token", fresh.token], { auth: false });
      const first = await send();
      expect(first.code, first.stderr).toBe(0);
      const counts = JSON.parse(first.stdout) as { calls: number; duplicates: number; events: number; interruptions: number };
      expect(counts.calls).toBeGreaterThan(100);
      expect(counts.events).toBeGreaterThan(0);
      expect(counts.interruptions).toBeGreaterThan(10);
      const types = (await (await fresh.api("/api/interruptions/stats")).json()) as { interruption_type: string }[];
      expect(new Set(types.map((t) => t.interruption_type)).size).toBeGreaterThan(8);
      const again = JSON.parse((await send()).stdout) as typeof counts;
      expect(again).toMatchObject({ calls: 0, duplicates: counts.calls + counts.duplicates, interruptions: 0 });
      expect((await cli(["demo", "--url", fresh.url, "--token", fresh.token], { auth: false })).stdout).toMatch(/^Sent the demo to http:\/\/127\.0\.0\.1:\d+: 0 calls stored \(\d+ already there\)/);
    } finally {
      await fresh.stop();
    }
  }, 120_000);
});

describe("failures", () => {
  it("reports a server that is down", async () => {
    const port = await closedPort();
    const r = await cli(["interruption", "list", "--url", `http://127.0.0.1:${port}`, "--token", server.token], { auth: false });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(`error: Cannot reach SightDesk at http://127.0.0.1:${port}: connection refused`);
  });

  it("reports a bad token", async () => {
    const r = await cli(["interruption", "list", "--url", server.url, "--token", "not-a-real-token"], { auth: false });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Token rejected by http:\/\/127\.0\.0\.1:\d+: Invalid, expired or revoked token/m);
    expect(r.stderr).not.toContain("not-a-real-token");
  });

  it("reports a token the server rejects while following an AgentSight directory as that, not as an unexpected error", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-cli-follow-"));
    const files = createAgentSightFiles(dir);
    insertCall(files.genai, { callId: uid("follow-call"), session: uid("follow-s"), conversation: uid("follow-c"), startNs: BigInt(ns(0)), input: [agentSightUser("hi")] });
    files.genai.close();
    files.events.close();
    const r = await cli(["import", "agentsight", dir, "--follow", "--interval", "0.2", "--url", server.url, "--token", "not-a-real-token"], { auth: false });
    expect(r.code).toBe(1);
    // before: "error: unexpected: Token rejected …", as if the CLI had crashed
    expect(r.stderr).toMatch(/^error: Token rejected by http:\/\/127\.0\.0\.1:\d+/m);
    expect(r.stderr).not.toContain("unexpected");
  });

  it("does not print the credentials of a server URL it refuses", async () => {
    for (const url of ["https://ci:S3CRET-PW@sd.example", "https://sd.example/?token=S3CRET-Q", "ftp://ci:S3CRET-FTP@sd.example"]) {
      const r = await cli(["interruption", "count", "--url", url, "--token", "t"], { auth: false });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: Invalid server URL/m);
      expect(r.stderr).not.toMatch(/S3CRET/);
    }
  });

  it("reports an unknown interruption id", async () => {
    const unknown = "0".repeat(32);
    for (const args of [["get", unknown], ["resolve", unknown], ["acknowledge", unknown]]) {
      const r = await cli(["interruption", ...args]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(`error: Interruption not found: ${unknown}`);
    }
  });

  it("refuses an id that is not one (exit 2), without pointing at --help", async () => {
    const r = await cli(["interruption", "get", ".."]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: Invalid interruption id '..'\n");
  });

  it("rejects bad flag values as usage errors (exit 2) without a request", async () => {
    const cases = [
      ["interruption", "list", "--limit", "abc"],
      ["interruption", "list", "--limit", "0"],
      ["interruption", "list", "--last", "soon"],
      ["interruption", "list", "--severity", "catastrophic"],
      ["interruption", "list", "--type", "gremlins"],
      ["interruption", "list", "--resolved", "--unresolved"],
      ["interruption", "frobnicate"],
      ["token", "create", "--name", "x"],
      ["token", "create", "--name", "x", "--scope", "root"],
      ["interruption", "get"],
      // two wake-up times: before, the server's 400 named until_ns (a field the user never typed), exit 1
      ["interruption", "snooze", "3f0c9e5d2b7a4c1e8f6a0b9d7c5e3a1f", "--for", "8h", "--until", "2027-01-31"],
    ];
    const results = await Promise.all(cases.map((args) => cli(args)));
    results.forEach((r, i) => {
      expect({ args: cases[i], code: r.code }).toEqual({ args: cases[i], code: 2 });
      expect(r.stderr).toMatch(/error:/);
    });
    expect(results[0].stderr).toMatch(/--limit <n>' argument 'abc' is invalid/);
    expect(results[3].stderr).toMatch(/unknown value 'catastrophic'/);
    expect(results.at(-1)!.stderr).toMatch(/--for or --until, not both/);
  });

  it("rejects an invalid --url", async () => {
    const r = await cli(["interruption", "list", "--url", "ftp://example.com", "--token", "x"], { auth: false });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Invalid server URL/);
  });

  it("prints help with exit 0", async () => {
    const r = await cli(["--help"], { auth: false });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: sightdesk/);
    expect(r.stdout).toMatch(/interruption/);
    expect(r.stdout).toMatch(/token/);
    const sub = await cli(["interruption", "list", "--help"], { auth: false });
    expect(sub.code).toBe(0);
    for (const flag of ["--last", "--type", "--severity", "--agent", "--unresolved", "--resolved", "--limit", "--json", "--session", "--conversation"]) {
      expect(sub.stdout).toContain(flag);
    }
  });
});
