// GET /api/sources (issue 13): each ingest route records, in its own transaction, when data
// arrived through which source and from which agents — REST calls and events (api), raw
// exchanges (http), the same from the recording proxy (X-SightDesk-Source: proxy), and
// AgentSight imports (the upload, and the CLI's X-SightDesk-Source: import on /calls).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SourceRecord } from "@/lib/api/contracts/wire";
import { createToken, nsAgo, request } from "./support/http";
import { startServer, type TestServer } from "./support/server";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE = fs.existsSync(path.resolve(ROOT, "../shared/fixtures/agentsight-sample"))
  ? path.resolve(ROOT, "../shared/fixtures/agentsight-sample")
  : "/work/shared/fixtures/agentsight-sample";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const exampleExchange = () => JSON.parse(fs.readFileSync(path.join(ROOT, "examples/exchange-anthropic-529.json"), "utf8")) as Record<string, unknown>;

function call(id: string, agent: string) {
  return {
    call_id: id, agent_name: agent, provider: "openai", model: "m", start_ns: nsAgo(5000), end_ns: nsAgo(4000), status_code: 200, finish_reasons: ["stop"],
    input_messages: [{ role: "user", parts: [{ type: "text", content: `hi ${id}` }] }],
    output_messages: [{ role: "assistant", parts: [{ type: "text", content: "hello" }] }],
  };
}

async function post(route: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await server.api(route, { method: "POST", body: JSON.stringify(body), headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

async function sources(token?: string): Promise<Map<string, SourceRecord>> {
  const reply = await request<SourceRecord[]>(server, "GET", "/api/sources", undefined, token);
  expect(reply.status, reply.text).toBe(200);
  return new Map(reply.body.map((s) => [s.source, s]));
}

const agentsOf = (s: SourceRecord | undefined) => (s?.agents ?? []).map((a) => a.agent_name).sort();

describe("GET /api/sources", () => {
  it("lists every source, none seen, on a fresh server", async () => {
    const all = await sources();
    expect([...all.keys()]).toEqual(["api", "http", "proxy", "otlp", "import"]);
    for (const s of all.values()) expect(s).toEqual({ source: s.source, last_seen_ns: null, calls: 0, agents: [] });
  });

  it("records each way in: calls and events (api), raw exchanges (http), the proxy's (proxy), AgentSight (import)", async () => {
    const before = BigInt(Date.now()) * 1_000_000n;
    await post("/api/ingest/calls", [call("src-api-1", "alpha"), call("src-api-2", "beta"), call("src-api-3", "alpha")]);
    await post("/api/ingest/calls", [call("src-api-1", "alpha")]); // a re-send: arrival, but no new call
    await post("/api/ingest/events", [{ kind: "process_exit", pid: 4242, agent_name: "gamma", at_ns: nsAgo(1000), exit_code: 0 }]);
    await post("/api/ingest/calls", [call("src-api-proxyclaim", "delta")], { "X-SightDesk-Source": "proxy" }); // /calls takes only "import"
    await post("/api/ingest/http", { ...exampleExchange(), call_id: "src-http-1", agent_name: "http-bot" });
    await post("/api/ingest/http", { ...exampleExchange(), call_id: "src-http-2", agent_name: "odd-bot" }, { "X-SightDesk-Source": "something-else" });
    await post("/api/ingest/http", { ...exampleExchange(), call_id: "src-proxy-1", agent_name: "proxied-bot" }, { "X-SightDesk-Source": "proxy" });
    await post("/api/ingest/http", { ...exampleExchange(), call_id: "src-proxy-2", agent_name: undefined }, { "x-sightdesk-source": "PROXY" }); // no agent name
    await post("/api/ingest/calls", [call("src-import-1", "forwarded-bot")], { "X-SightDesk-Source": "import" }); // what the CLI forwarder sends

    const form = new FormData();
    form.append("genai_events", new Blob([fs.readFileSync(path.join(SAMPLE, "genai_events.db"))]), "genai_events.db");
    const encoded = new Request("http://encode.invalid/", { method: "POST", body: form });
    const upload = await server.api("/api/import/agentsight", { method: "POST", headers: { "content-type": encoded.headers.get("content-type")! }, body: await encoded.arrayBuffer() });
    expect(upload.status, await upload.clone().text()).toBe(200);

    const all = await sources();
    const after = BigInt(Date.now()) * 1_000_000n;
    const api = all.get("api")!;
    expect(agentsOf(api)).toEqual(["alpha", "beta", "delta", "gamma"]);
    expect(api.calls).toBe(4); // 3 + the claimed-proxy one; the re-send and the event add none
    expect(api.agents.find((a) => a.agent_name === "alpha")!.calls).toBe(2);
    expect(api.agents.find((a) => a.agent_name === "gamma")!.calls).toBe(0);
    expect(BigInt(api.last_seen_ns!)).toBeGreaterThanOrEqual(before);
    expect(BigInt(api.last_seen_ns!)).toBeLessThanOrEqual(after);

    expect(agentsOf(all.get("http"))).toEqual(["http-bot", "odd-bot"]);
    expect(all.get("http")!.calls).toBe(2);
    expect(agentsOf(all.get("proxy"))).toEqual(["proxied-bot"]); // the exchange without a name counts, unlisted
    expect(all.get("proxy")!.calls).toBe(2);
    expect(all.get("otlp")).toEqual({ source: "otlp", last_seen_ns: null, calls: 0, agents: [] });
    const imported = all.get("import")!;
    expect(agentsOf(imported)).toEqual(["agent-0", "agent-1", "agent-2", "forwarded-bot"]);
    expect(imported.calls).toBe(31);
    // agents most recent first
    const times = imported.agents.map((a) => BigInt(a.last_seen_ns));
    expect([...times].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))).toEqual(times);
  });

  it("needs the read scope", async () => {
    const ingestOnly = await createToken(server, "sources-ingest", ["ingest"]);
    const reply = await request(server, "GET", "/api/sources", undefined, ingestOnly.token);
    expect(reply.status).toBe(403);
    const reader = await createToken(server, "sources-read", ["read"]);
    expect((await sources(reader.token)).size).toBe(5);
    expect((await request(server, "GET", "/api/sources", undefined, null)).status).toBe(401);
  });
});
