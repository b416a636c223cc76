// POST /api/import/agentsight (SPEC §2.5): the upload equivalent of `sightdesk import agentsight`,
// against the real server and only through the API (so it runs on SQLite and PostgreSQL alike):
// AgentSight's own files, counts, kept ids, a no-op re-upload, both files checked before anything
// is imported, 400s naming the field, the size cap, and admin-only access.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportStats } from "@/lib/import/agentsight";
import { createAgentSightFiles, insertInterruption } from "../fixtures/agentsight";
import { createToken, expectError, parseExact, request, type InterruptionRecord, type Reply } from "./support/http";
import { startServer, type TestServer } from "./support/server";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE = fs.existsSync(path.resolve(ROOT, "../shared/fixtures/agentsight-sample"))
  ? path.resolve(ROOT, "../shared/fixtures/agentsight-sample")
  : "/work/shared/fixtures/agentsight-sample";
const ROUTE = "/api/import/agentsight";
const UPLOAD_LIMIT = 1024 * 1024;

// AgentSight's interruptions in the sample directory: id → [type, severity, resolved]
const SAMPLE_INTERRUPTIONS: Record<string, [string, string, boolean]> = {
  "7367e4cac92eafdcfa8919b5c2849de6": ["rate_limit", "medium", false],
  "4436bcfcd11473f9b69016eda0a380a4": ["rate_limit", "medium", false],
  baf1b7b924002a77859cccd7466d44d7: ["llm_error", "high", true],
  bf1ec5af60d4ce14c5fa440afc634acb: ["token_limit", "medium", false],
  "0b0f6c1235b640424128870908bd334b": ["llm_error", "high", true],
  "89bcc60a60f92e5d84aed67e79c9557a": ["token_limit", "medium", false],
  "4a1bca549574423dca93e9e5413b8aaf": ["dead_loop", "critical", false],
  d9495392948a11c9a5bb5238b9842764: ["dead_loop", "critical", false],
  "2f76a60ae388e1f29d4780913d2f8e3f": ["agent_crash", "critical", false],
};

let server: TestServer;
let tmp: string;

beforeAll(async () => {
  server = await startServer({ SIGHTDESK_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT) });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-upload-test-"));
});
afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const file = (p: string) => new Blob([fs.readFileSync(p)]);
const sample = (name: "genai_events" | "interruption_events") => file(path.join(SAMPLE, `${name}.db`));

/** POSTs `parts` as multipart/form-data (Blobs as files named `<field>.db`). */
async function upload(parts: Record<string, Blob | string>, token?: string | null): Promise<Reply<ImportStats>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, value, `${name}.db`);
  }
  // encoded here: the server helper would otherwise label the body as JSON
  const encoded = new Request("http://encode.invalid/", { method: "POST", body: form });
  const res = await server.api(ROUTE, {
    method: "POST",
    token,
    headers: { "content-type": encoded.headers.get("content-type")! },
    body: await encoded.arrayBuffer(),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: (text ? parseExact(text) : undefined) as ImportStats };
}

/** Uploads the sample directory's two files: 200, with these statistics. */
async function uploadSample(expected: Partial<ImportStats>): Promise<ImportStats> {
  const reply = await upload({ genai_events: sample("genai_events"), interruption_events: sample("interruption_events") });
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toMatchObject(expected);
  return reply.body;
}

/** Every interruption the list route has, newest first, by id. */
async function listed(): Promise<Map<string, InterruptionRecord>> {
  const end = BigInt(Date.now()) * 1_000_000n + 86_400_000_000_000n;
  const reply = await request<InterruptionRecord[]>(server, "GET", `/api/interruptions?start_ns=0&end_ns=${end}&limit=1000`);
  expect(reply.status, reply.text).toBe(200);
  return new Map(reply.body.map((r) => [r.interruption_id, r]));
}

/** A store built with AgentSight's DDL, holding one interruption with this id; its files' paths. */
function builtStore(name: string, interruptionId: string): { genai: string; events: string } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const store = createAgentSightFiles(dir);
  const atNs = BigInt(Date.now() - 60_000) * 1_000_000n;
  insertInterruption(store.events, { id: interruptionId, session: null, conversation: null, callId: null, type: "agent_crash", severity: "critical", atNs, detail: { pid: 31337 } });
  store.genai.close();
  store.events.close();
  return { genai: path.join(dir, "genai_events.db"), events: path.join(dir, "interruption_events.db") };
}

describe("POST /api/import/agentsight", () => {
  it("imports AgentSight's two files: 200 with the counts, and the interruptions keep their ids, types, severities and resolved flags", async () => {
    const stats = await uploadSample({
      calls: { imported: 30, present: 0, skipped: 0, pending: 0 },
      interruptions: { imported: 9, present: 0, skipped: 0, resolved: 2 },
      sessions: { imported: 3, present: 0 },
      problems: [],
    });
    expect(stats.detected).toBeGreaterThan(0);

    const records = await listed();
    for (const [id, [type, severity, resolved]] of Object.entries(SAMPLE_INTERRUPTIONS)) {
      expect(records.get(id), id).toMatchObject({ interruption_type: type, severity, resolved, status: resolved ? "resolved" : "open" });
    }
    expect(records.get("7367e4cac92eafdcfa8919b5c2849de6")).toMatchObject({ session_id: "as-5476807e-0000-4000-8000-ec18eac8d758", call_id: "as-call-sample-0-0-2" });
    expect(records.get("2f76a60ae388e1f29d4780913d2f8e3f")).toMatchObject({ session_id: null, conversation_id: null });
    const session = await request(server, "GET", "/api/sessions/as-5476807e-0000-4000-8000-ec18eac8d758");
    expect(session.status, session.text).toBe(200);
  });

  it("is a no-op when the same files are uploaded again", async () => {
    const before = await listed();
    await uploadSample({
      calls: { imported: 0, present: 30, skipped: 0, pending: 0 },
      interruptions: { imported: 0, present: 9, skipped: 0, resolved: 0 },
      sessions: { imported: 0, present: 3 },
      detected: 0,
    });
    expect(await listed()).toEqual(before);
  });

  it("takes interruption_events.db alone", async () => {
    const store = builtStore("alone", "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1");
    const reply = await upload({ interruption_events: file(store.events) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.calls.imported + reply.body.calls.present).toBe(0);
    expect(reply.body.interruptions).toMatchObject({ imported: 1, present: 0 });
    expect((await listed()).get("a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1")).toMatchObject({ interruption_type: "agent_crash", severity: "critical" });
  });

  it("400 naming the field for a file that is not SQLite, and nothing of the other file is imported", async () => {
    const store = builtStore("half", "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2");
    const reply = await upload({ genai_events: new Blob(["call_id,model\nc-1,qwen\n"]), interruption_events: file(store.events) });
    expectError(reply, 400, /^genai_events: the file is not a SQLite database/);
    expect((await request(server, "GET", "/api/interruptions/b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2")).status).toBe(404);

    const empty = await upload({ interruption_events: new Blob([]) });
    expectError(empty, 400, /^interruption_events: the file is not a SQLite database/);
    const text = await upload({ genai_events: "not a file" });
    expectError(text, 400, /^genai_events: .*file/);
  });

  it("400 naming the field for a SQLite file without AgentSight's table", async () => {
    const other = path.join(tmp, "other.db");
    const db = new Database(other);
    db.exec("CREATE TABLE calls (id INTEGER PRIMARY KEY, call_id TEXT)");
    db.close();
    const reply = await upload({ genai_events: sample("genai_events"), interruption_events: file(other) });
    expectError(reply, 400, /^interruption_events: the file has no table interruption_events/);
    // the genai file was valid, but nothing was imported: its calls are still only the ones from before
    const again = await upload({ genai_events: sample("genai_events") });
    expect(again.body.calls).toMatchObject({ imported: 0, present: 30 });
  });

  it("400 without files, with an unknown field, or with a JSON body", async () => {
    expectError(await upload({}), 400, /genai_events and\/or interruption_events/);
    expectError(await upload({ genai: sample("genai_events") }), 400, /genai/);
    const json = await request(server, "POST", ROUTE, { genai_events: "x" });
    expectError(json, 400, /multipart\/form-data/);
  });

  it("413 over the upload limit", async () => {
    const reply = await upload({ genai_events: new Blob([Buffer.alloc(UPLOAD_LIMIT + 1024)]) });
    expectError(reply, 413, /exceeds/);
  });

  it("401 without a token, 403 for a token without the admin scope", async () => {
    expectError(await upload({ genai_events: sample("genai_events") }, null), 401);
    const responder = await createToken(server, "upload-not-admin", ["read", "triage", "ingest"]);
    expectError(await upload({ genai_events: sample("genai_events") }, responder.token), 403, /admin/);
  });

  it("is described in the OpenAPI document as a multipart upload for admins", async () => {
    type Doc = { paths: Record<string, Record<string, { "x-required-scope": string; requestBody: { content: Record<string, { schema: { properties: object } }> } }>> };
    const doc = (await request<Doc>(server, "GET", "/api/openapi.json", undefined, null)).body;
    const op = doc.paths[ROUTE].post;
    expect(op["x-required-scope"]).toBe("admin");
    expect(Object.keys(op.requestBody.content["multipart/form-data"].schema.properties).sort()).toEqual(["genai_events", "interruption_events"]);
  });
});
