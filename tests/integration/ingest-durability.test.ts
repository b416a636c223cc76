// Acknowledged means durable: agents post one call per request, concurrently, so the server
// groups them into shared transactions (group commit); the server's process group is killed
// with SIGKILL right after some answers arrive, and a new server on the same database must
// hold every acknowledged call, whole (messages, session and conversation counters), and
// nothing half-written. Agents then resend everything, as they would after the outage. And an
// invalid request among requests that arrive together fails alone.
import { afterAll, describe, expect, it } from "vitest";
import { call, json, toolCall, toolResponse, uid, user } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";

const AGENTS = 16;
/** Answers to wait for before the kill: a few per agent, while the other agents' requests are in flight. */
const KILL_AFTER = 48;

type Message = ReturnType<typeof user> | ReturnType<typeof toolCall> | ReturnType<typeof toolResponse>;

/** One agent: a session with one conversation whose history grows by a tool call and its result per call. */
function agent(index: number) {
  const sessionId = uid(`durable-${index}`);
  const history: Message[] = [user(`task ${index}: list the files`)];
  const sent: ReturnType<typeof call>[] = [];
  const next = () => {
    const k = sent.length;
    const toolId = `${sessionId}-t${k}`;
    const c = call(
      {
        session_id: sessionId,
        conversation_id: `${sessionId}-conv`,
        input_tokens: 1000 + k,
        input_messages: [...history],
        output_messages: [toolCall(toolId, "bash", { cmd: `ls dir${k}` })],
        finish_reasons: ["tool_calls"],
      },
      k * 1000,
    );
    history.push(toolCall(toolId, "bash", { cmd: `ls dir${k}` }), toolResponse(toolId, `file${k}.txt`));
    sent.push(c);
    return c;
  };
  return { sessionId, sent, acked: [] as string[], next };
}

type Agent = ReturnType<typeof agent>;

let servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function stored(server: TestServer, a: Agent) {
  const calls = (await (await server.api(`/api/sessions/${encodeURIComponent(a.sessionId)}/calls`)).json()) as { call_id: string }[];
  const session = (await (await server.api(`/api/sessions/${encodeURIComponent(a.sessionId)}`)).json()) as {
    call_count: number;
    input_tokens: number;
    conversations: { call_count: number }[];
  };
  return { ids: calls.map((c) => c.call_id), session };
}

describe("acknowledged calls survive a SIGKILL of the server", () => {
  it("keeps every acknowledged call, whole, and nothing half-written", async () => {
    const first = await startServer();
    servers.push(first);
    const agents = Array.from({ length: AGENTS }, (_, i) => agent(i));
    let acked = 0;
    let killed: Promise<void> | null = null;
    await Promise.all(
      agents.map(async (a) => {
        while (!killed) {
          const c = a.next();
          try {
            const res = await first.api("/api/ingest/calls", { method: "POST", body: json(c) });
            const body = (await res.json()) as { accepted: number };
            expect(res.status).toBe(200); // an answer read after the kill was sent still counts: it was sent before
            expect(body.accepted).toBe(1);
            a.acked.push(c.call_id);
            if (++acked >= KILL_AFTER && !killed) killed = first.kill(); // SIGKILL goes out now, before any other answer is read
          } catch (e) {
            if (!killed) throw e;
            return; // in flight when the server died
          }
        }
      }),
    );
    await killed;
    expect(acked).toBeGreaterThanOrEqual(KILL_AFTER);

    const second = await startServer({}, { dataDir: first.dataDir, database: first.database });
    servers = [second]; // it removes the data directory and the database when it stops
    const storedBefore = new Map<Agent, number>();
    for (const a of agents) {
      const { ids, session } = await stored(second, a);
      storedBefore.set(a, ids.length);
      // every acknowledged call is there; at most the one in flight besides (each agent waits for its answers)
      expect(ids.slice(0, a.acked.length)).toEqual(a.acked);
      expect(ids.length - a.acked.length).toBeLessThanOrEqual(1);
      expect(ids).toEqual(a.sent.slice(0, ids.length).map((c) => c.call_id));
      // the rows written with the calls agree with them: no call without its session update, or the reverse
      expect(session.call_count).toBe(ids.length);
      expect(session.conversations.map((c) => c.call_count)).toEqual([ids.length]);
      expect(session.input_tokens).toBe(a.sent.slice(0, ids.length).reduce((n, c) => n + c.input_tokens, 0));
      // the last stored call's whole history reads back: its messages were committed with it
      const last = a.sent[ids.length - 1];
      const detail = (await (await second.api(`/api/calls/${encodeURIComponent(last.call_id)}`)).json()) as { input_messages: unknown; output_messages: unknown };
      expect(detail.input_messages).toEqual(last.input_messages);
      expect(detail.output_messages).toEqual(last.output_messages);
    }

    // The agents resend everything they sent (acknowledged or not): what was stored is a duplicate, the rest is stored once.
    for (const a of agents) {
      const res = await second.api("/api/ingest/calls", { method: "POST", body: json(a.sent) });
      const before = storedBefore.get(a)!;
      expect(await res.json()).toMatchObject({ received: a.sent.length, duplicates: before, accepted: a.sent.length - before });
      const { ids, session } = await stored(second, a);
      expect(ids).toEqual(a.sent.map((c) => c.call_id));
      expect(session.call_count).toBe(a.sent.length);
    }
  }, 120_000);
});

describe("requests that arrive together", () => {
  it("fail alone when invalid (400 naming the field), while the requests beside them are stored", async () => {
    const server = await startServer();
    servers.push(server);
    const sessionId = uid("burst");
    const good = Array.from({ length: 16 }, (_, k) => call({ session_id: sessionId }, k * 1000));
    const bad = call({ session_id: sessionId, input_messages: [{ role: "user", parts: [{ type: "text" }] }] }, 500);
    const bodies = [...good.slice(0, 8), bad, ...good.slice(8)];
    const answers = await Promise.all(bodies.map((b) => server.api("/api/ingest/calls", { method: "POST", body: json(b) }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))));
    const badAnswer = answers[8];
    expect(badAnswer.status).toBe(400);
    expect(badAnswer.body.error).toMatch(/input_messages\[0\]\.parts\[0\]\.content/);
    for (const a of answers.filter((a) => a !== badAnswer)) expect(a).toMatchObject({ status: 200, body: { received: 1, accepted: 1, duplicates: 0 } });
    const { ids, session } = await stored(server, { sessionId } as Agent);
    expect(ids.sort()).toEqual(good.map((c) => c.call_id).sort());
    expect(session.call_count).toBe(16);
  });
});
