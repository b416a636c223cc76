// Team triage against the real server: regression of resolved fingerprints, assignee filters
// (including `me`), and the grouped view by fingerprint.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonExact } from "@/lib/wire/json";
import { nextLink, routeOf } from "./support/http";
import { call, json, uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

type Rec = { interruption_id: string; regressed: boolean; assignee: string | null; fingerprint: string; status: string };
type Group = { fingerprint: string; count: number; by_status: { open: number; acknowledged: number; snoozed: number; resolved: number }; regressed: boolean; trend: number[]; last_seen_ns: string };

async function get<T>(route: string): Promise<T> {
  const res = await server.api(route);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return parseJsonExact(text) as T;
}

async function post(route: string, body: unknown = {}) {
  const res = await server.api(route, { method: "POST", body: json(body) });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
}

/** A failing call of one agent: same agent + model + error code → same fingerprint. */
const failing = (agent: string, atMs: number) =>
  call({ agent_name: agent, session_id: uid("s"), status_code: 503, error: "Service Unavailable", response_body: '{"error":{"code":"overloaded"}}' }, atMs);

describe("regression (SPEC §3.4)", () => {
  it("marks an interruption whose fingerprint was resolved before it occurred", async () => {
    const agent = uid("regress-agent");
    await post("/api/ingest/calls", failing(agent, 0));
    const [first] = await get<Rec[]>(`/api/interruptions?agent_name=${agent}`);
    expect(first.regressed).toBe(false);
    await post(`/api/interruptions/${first.interruption_id}/resolve`);

    await post("/api/ingest/calls", failing(agent, 60_000));
    const list = await get<Rec[]>(`/api/interruptions?agent_name=${agent}`);
    expect(list).toHaveLength(2);
    const again = list.find((r) => r.interruption_id !== first.interruption_id)!;
    expect(again).toMatchObject({ regressed: true, status: "open", fingerprint: first.fingerprint });
    expect(list.find((r) => r.interruption_id === first.interruption_id)!.regressed).toBe(false);

    expect((await get<Rec[]>(`/api/interruptions?agent_name=${agent}&regressed=true`)).map((r) => r.interruption_id)).toEqual([again.interruption_id]);
    expect((await get<Rec>(`/api/interruptions/${again.interruption_id}`)).regressed).toBe(true);
  });
});

describe("assignee filters", () => {
  it("filters by assignee, `none` and `me`", async () => {
    const agent = uid("assign-agent");
    await post("/api/ingest/calls", [failing(agent, 0), call({ agent_name: agent, session_id: uid("s"), status_code: 429, error: "rate limit" }, 1000)]);
    const [a, b] = await get<Rec[]>(`/api/interruptions?agent_name=${agent}`);
    await post(`/api/interruptions/${a.interruption_id}/assign`, { assignee: "alice@example.com" });
    await post(`/api/interruptions/${b.interruption_id}/assign`, { assignee: "dashboard token file" });

    const ids = async (q: string) => (await get<Rec[]>(`/api/interruptions?agent_name=${agent}&${q}`)).map((r) => r.interruption_id);
    expect(await ids("assignee=alice@example.com")).toEqual([a.interruption_id]);
    expect(await ids("assignee=me")).toEqual([b.interruption_id]);
    expect(await ids("assignee=none")).toEqual([]);
    expect((await ids("assignee=none,alice@example.com")).sort()).toEqual([a.interruption_id]);
    expect(await get<{ total: number }>(`/api/interruptions/count?agent_name=${agent}&assignee=me`)).toMatchObject({ total: 1 });
  });
});

describe("grouped view", () => {
  it("groups by fingerprint with state counts and a trend, and a group resolves through bulk", async () => {
    const agent = uid("group-agent");
    await post("/api/ingest/calls", [failing(agent, 0), failing(agent, 1000), failing(agent, 2000), call({ agent_name: agent, session_id: uid("s"), status_code: 401, error: "invalid_api_key" }, 3000)]);
    const groups = await get<Group[]>(`/api/interruptions/groups?agent_name=${agent}&buckets=6`);
    expect(groups).toHaveLength(2);
    const big = groups.find((g) => g.count === 3)!;
    expect(big.by_status).toEqual({ open: 3, acknowledged: 0, snoozed: 0, resolved: 0 });
    expect(big.trend).toHaveLength(6);
    expect(big.trend.reduce((s, n) => s + n, 0)).toBe(3);

    const result = await post("/api/interruptions/bulk", { action: "resolve", filter: { agent_name: agent, fingerprint: big.fingerprint } });
    expect(result).toEqual({ matched: 3, changed: 3 });
    const after = await get<Group[]>(`/api/interruptions/groups?agent_name=${agent}`);
    expect(after.find((g) => g.fingerprint === big.fingerprint)!.by_status).toEqual({ open: 0, acknowledged: 0, snoozed: 0, resolved: 3 });
  });

  it("pages groups with a Link rel=\"next\" header, newest sighting first, ties by fingerprint", async () => {
    const agent = uid("paged-groups");
    const at = (ms: number, status: number, error: string) => call({ agent_name: agent, session_id: uid("s"), status_code: status, error }, ms);
    // two groups last seen at the same instant: the cursor must not skip or repeat either
    await post("/api/ingest/calls", [at(0, 429, "rate limit"), at(5000, 503, "Service Unavailable"), at(5000, 401, "invalid_api_key")]);
    const whole = await get<Group[]>(`/api/interruptions/groups?agent_name=${agent}`);
    expect(whole).toHaveLength(3);
    const seen: string[] = [];
    let route: string | null = `/api/interruptions/groups?agent_name=${agent}&limit=1`;
    for (let pages = 0; route && pages < 10; pages++) {
      const res = await server.api(route);
      expect(res.status).toBe(200);
      const page = parseJsonExact(await res.text()) as Group[];
      seen.push(...page.map((g) => g.fingerprint));
      const link = nextLink(res.headers);
      route = link && routeOf(link, server.url);
      if (page.length === 0) expect(route).toBeNull();
      if (link) expect([...new URL(link, server.url).searchParams.keys()]).toEqual(expect.arrayContaining(["start_ns", "end_ns"])); // the default window stays the first page's
    }
    expect(seen).toEqual(whole.map((g) => g.fingerprint));
    expect((await server.api(`/api/interruptions/groups?cursor=yesterday`)).status).toBe(400);
  });

  it("rejects a bad buckets value naming it", async () => {
    const res = await server.api("/api/interruptions/groups?buckets=0");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "buckets: expected 1 to 100" });
  });
});
