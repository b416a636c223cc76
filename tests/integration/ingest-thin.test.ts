// The ingest worker sends a call to the request thread without the messages its conversation's
// previous call carried (lib/ingest/prepare.ts `thinned`). When those messages are not stored
// after all — the previous call was swept away by retention, or its batch failed — the call is
// prepared again whole and stored with its whole history, its tool results judged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, json, toolCall, toolResponse, uid, user } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";
import { createDb, type Db } from "@/lib/db/client";

let server: TestServer;
let db: Db; // the server's database, for its sweep log

beforeAll(async () => {
  server = await startServer({ SIGHTDESK_CHECK_INTERVAL_SECS: "1" });
  db = createDb(server.databaseUrl);
});
afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
});

const MS = 1_000_000n;
const DAY_MS = 86_400_000n;

async function post(body: unknown) {
  const res = await server.api("/api/ingest/calls", { method: "POST", body: json(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as { accepted: number };
}

async function getCall(id: string) {
  const res = await server.api(`/api/calls/${encodeURIComponent(id)}`);
  return { status: res.status, body: res.status === 200 ? ((await res.json()) as { input_messages: { role: string; parts: { type: string; content?: string; response?: unknown }[] }[] }) : null };
}

describe("a call whose conversation's earlier messages are gone", () => {
  it("is stored with its whole history after retention swept the call before it", async () => {
    const sessionId = uid("thin");
    const old = BigInt(Date.now()) * MS - 40n * DAY_MS * MS; // beyond the 30-day retention
    const first = call({
      session_id: sessionId, conversation_id: "c-thin", start_ns: String(old), end_ns: String(old + 800n * MS),
      input_messages: [user("deploy the service")],
      output_messages: [toolCall("t1", "bash", { cmd: "kubectl apply -f svc.yaml" })],
    });
    expect((await post([first])).accepted).toBe(1);
    const storedAt = BigInt(Date.now()) * MS;
    // the sweeper (every second) deletes the 40-day-old call, then its conversation with its
    // messages: a sweep that started after the call was stored has done both once it is done
    for (let i = 0; !(await db.sweepRun.count({ where: { startedAtNs: { gt: storedAt }, status: "done" } })); i++) {
      if (i > 100) throw new Error("no sweep ran after the old call was stored");
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await getCall(first.call_id)).status).toBe(404);
    // the next call repeats the first's messages: the worker had read them with the first call
    const history = [user("deploy the service"), toolCall("t1", "bash", { cmd: "kubectl apply -f svc.yaml" }), toolResponse("t1", "error: permission denied (EACCES)", true)];
    const second = call({ session_id: sessionId, conversation_id: "c-thin", input_messages: history });
    // beside a large call: the body (200 KB) is moved to the worker, parsed in pieces, and handed back to be prepared again
    const large = call({ session_id: sessionId, conversation_id: "c-large", input_messages: [user("x".repeat(200_000))] });
    expect((await post([second, large])).accepted).toBe(2);

    const stored = await getCall(second.call_id);
    expect(stored.status).toBe(200);
    expect(stored.body!.input_messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(stored.body!.input_messages[0].parts[0].content).toBe("deploy the service");
    // the tool result was judged, under the name its call had in the history
    const res = await server.api(`/api/sessions/${encodeURIComponent(sessionId)}/interruptions`);
    const records = (await res.json()) as { interruption_type: string; detail: string }[];
    const denied = records.find((r) => r.interruption_type === "unauthorized_action");
    expect(denied, JSON.stringify(records)).toBeDefined();
    expect(JSON.parse(denied!.detail)).toMatchObject({ tool_call_id: "t1", tool_name: "bash" });
    // it went the way described above: thin from the worker, then prepared again whole
    expect(server.log()).toMatch(/\[ingest\] 2 call\(s\) prepared again whole/);
  });
});
