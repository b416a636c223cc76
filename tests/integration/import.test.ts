// `sightdesk import agentsight`: the real binary with the sample AgentSight directory, forwarding
// calls to a running server over the ingest API (--url/--token), and importing locally into the
// server's own data directory, where AgentSight's interruption ids then show through the API.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentSightFiles, insertCall, SECOND, user } from "../fixtures/agentsight";
import { startServer, type TestServer } from "./support/server";

const ROOT = path.resolve(__dirname, "../..");
const BIN = path.join(ROOT, "bin/sightdesk.mjs");
const SAMPLE = fs.existsSync(path.resolve(ROOT, "../shared/fixtures/agentsight-sample"))
  ? path.resolve(ROOT, "../shared/fixtures/agentsight-sample")
  : "/work/shared/fixtures/agentsight-sample";

type Run = { code: number; stdout: string; stderr: string };

let server: TestServer;
let cwd: string;

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env, TZ: "UTC", NO_COLOR: "1" };
  for (const k of Object.keys(base)) if (k.startsWith("SIGHTDESK_") || k === "DATABASE_URL") delete base[k];
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...base, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  server = await startServer();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-import-cwd-"));
});

afterAll(async () => {
  await server?.stop();
});

type ApiRecord = { interruption_id: string; interruption_type: string; severity: string; resolved: boolean; call_id: string | null; session_id: string | null };

describe("sightdesk import agentsight", () => {
  it("forwards the calls to a server with --url and --token; the server detects interruptions", async () => {
    const run = await cli(["import", "agentsight", SAMPLE, "--url", server.url, "--token", server.token]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("calls:         30 imported, 0 already present, 0 skipped");
    expect(run.stdout).toContain("interruptions: not forwarded");

    const res = await server.api("/api/sessions/as-5476807e-0000-4000-8000-ec18eac8d758/interruptions");
    expect(res.status).toBe(200);
    const records = (await res.json()) as ApiRecord[];
    const rateLimits = records.filter((r) => r.interruption_type === "rate_limit");
    expect(rateLimits.map((r) => r.call_id).sort()).toEqual(["as-call-sample-0-0-2", "as-call-sample-0-1-2"]);
    // SightDesk's own ids, not AgentSight's (those are not sent over the ingest API)
    expect(rateLimits.map((r) => r.interruption_id)).not.toContain("7367e4cac92eafdcfa8919b5c2849de6");
    // the server counts them as arrived through AgentSight import (the CLI sends X-SightDesk-Source: import), not the plain API
    const sources = (await (await server.api("/api/sources")).json()) as Array<{ source: string; calls: number; agents: Array<{ agent_name: string }> }>;
    expect(sources.find((s) => s.source === "import")).toMatchObject({ calls: 30, agents: expect.arrayContaining([expect.objectContaining({ agent_name: "agent-0" })]) });
    expect(sources.find((s) => s.source === "api")).toMatchObject({ calls: 0, agents: [] });

    // run again, it goes on where the first stopped (its marks kept in the data directory): nothing is new, nothing is sent again
    const again = await cli(["import", "agentsight", SAMPLE, "--url", server.url, "--token", server.token]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("calls:         0 imported, 0 already present");
    expect(fs.readdirSync(path.join(cwd, "data", "import-marks"))).toHaveLength(1);
  });

  it("imports locally into the server's data directory, keeping AgentSight's ids and resolved flags", async () => {
    const run = await cli(["import", "agentsight", SAMPLE], server.env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // the calls are there already (forwarded above): only AgentSight's interruptions are new
    expect(run.stdout).toContain("calls:         0 imported, 30 already present");
    expect(run.stdout).toContain("interruptions: 9 imported (2 resolved)");

    const rate = await server.api("/api/interruptions/7367e4cac92eafdcfa8919b5c2849de6");
    expect(rate.status).toBe(200);
    expect(await rate.json()).toMatchObject({ interruption_type: "rate_limit", severity: "medium", resolved: false, call_id: "as-call-sample-0-0-2" });
    const resolved = await server.api("/api/interruptions/baf1b7b924002a77859cccd7466d44d7");
    expect(await resolved.json()).toMatchObject({ interruption_type: "llm_error", severity: "high", resolved: true });
    const crash = await server.api("/api/interruptions/2f76a60ae388e1f29d4780913d2f8e3f");
    expect(await crash.json()).toMatchObject({ interruption_type: "agent_crash", severity: "critical", session_id: null, conversation_id: null });

    // $SIGHTDESK_URL names a server for the other commands: this one says it stays local (it did so silently)
    const again = await cli(["import", "agentsight", SAMPLE], { ...server.env, SIGHTDESK_URL: server.url });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("interruptions: 0 imported, 0 already present");
    expect(again.stderr).toMatch(/^note: \$SIGHTDESK_URL is set, but without --url the import goes into the local database/m);
  });

  it("shows rows, rate and time left in place on a terminal, and nothing with --quiet", async () => {
    // `script` gives the CLI a terminal (stdout and stderr both arrive here through it)
    const onTerminal = (extra: string[]): Promise<string> => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-import-tty-"));
      const command = [process.execPath, BIN, "import", "agentsight", SAMPLE, ...extra].map((a) => `'${a}'`).join(" ");
      const base: NodeJS.ProcessEnv = { ...process.env, TZ: "UTC", NO_COLOR: "1" };
      for (const k of Object.keys(base)) if (k.startsWith("SIGHTDESK_") || k === "DATABASE_URL") delete base[k];
      return new Promise((resolve, reject) => {
        execFile("script", ["-qec", command, "/dev/null"], { cwd, env: { ...base, SIGHTDESK_DATA_DIR: dataDir }, timeout: 60_000 }, (error, stdout) => {
          fs.rmSync(dataDir, { recursive: true, force: true });
          if (error) reject(new Error(`${error.message}\n${stdout}`));
          else resolve(stdout);
        });
      });
    };
    const shown = await onTerminal([]);
    // each table's line is drawn from 0 and rewritten in place (\r, erase to the end), then ended
    expect(shown).toMatch(/\rgenai_events: 0 of 30 rows \(0 %\), 0 rows\/s\x1b\[K/);
    expect(shown).toMatch(/\rgenai_events: 30 of 30 rows \(100 %\), [\d,]+ rows\/s\x1b\[K\r?\n/);
    expect(shown).toMatch(/\rinterruption_events: 9 of 9 rows \(100 %\), [\d,]+ rows\/s\x1b\[K\r?\n/);
    expect(shown).toContain("interruptions: 9 imported (2 resolved)");
    const quiet = await onTerminal(["--quiet"]);
    expect(quiet).not.toMatch(/rows\/s/);
    expect(quiet).toContain("interruptions: 9 imported (2 resolved)");
  });

  it("skips, naming it, a call over a server's lower request limit and forwards the rest (it was sent again at every pass)", async () => {
    const limit = 64 * 1024;
    const small = await startServer({ SIGHTDESK_MAX_BODY_BYTES: String(limit) });
    try {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-import-limit-"));
      const { genai, events } = createAgentSightFiles(dir);
      const start = 1_767_268_800_000_000_000n;
      // the large one in the middle: the calls before and after it share its batch
      for (let i = 0; i < 5; i++) {
        const text = i === 2 ? "x".repeat(2 * limit) : `step ${i}`;
        insertCall(genai, { callId: `limit-${i}`, session: "s-limit", conversation: `c-limit-${i}`, startNs: start + BigInt(i) * SECOND, input: [user(text)] });
      }
      genai.close();
      events.close();
      const run = await cli(["import", "agentsight", dir, "--url", small.url, "--token", small.token]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("calls:         4 imported, 0 already present, 1 skipped");
      expect(run.stdout).toMatch(new RegExp(`skipped: call limit-2: the server refused it: Request body exceeds ${limit} bytes`));
      const stored = (await (await small.api("/api/sessions/s-limit")).json()) as { call_count: number };
      expect(stored.call_count).toBe(4);
    } finally {
      await small.stop();
    }
  });

  it("fails clearly on a directory that is not an AgentSight store", async () => {
    const run = await cli(["import", "agentsight", path.join(cwd, "missing")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No such directory/);
    const bad = await cli(["import", "agentsight", cwd, "--interval", "0"]);
    expect(bad.code).toBe(2);
  });
});
