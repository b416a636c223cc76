// Snooze and mute (SPEC §4, issue 15) against the real server and database: a snoozed
// interruption leaves the unresolved views but stays unresolved for the AgentSight routes; it
// wakes by itself after N more occurrences, on escalation (ingest) or when its time is up (the
// sweep), each time with an activity row saying why; a group snooze holds new arrivals; mute
// rules make matching arrivals snoozed, send no alert, and wake what they hold when removed or
// expired; bulk snooze; the CLI's `interruption snooze`.
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SnoozeRecord } from "@/lib/triage/snooze";
import type { MuteRuleRecord } from "@/lib/triage/mute";
import { createToken, expectError, failingCall, ingestCalls, request, type Activity, type FailureType, type InterruptionRecord } from "./support/http";
import { uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";
import { eventually } from "../support/waitFor";

// A short sweep interval, so time-based wake-ups come within a second or two; the webhook
// receiver listens on loopback.
const ENV = { SIGHTDESK_CHECK_INTERVAL_SECS: "1", SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8" };

let server: TestServer;
beforeAll(async () => {
  server = await startServer(ENV);
});
afterAll(async () => {
  await server?.stop();
});

type Snooze = Omit<SnoozeRecord, "until_ns" | "created_at_ns" | "ended_at_ns"> & { until_ns: string | null; ended_at_ns: string | null };
type Rule = Omit<MuteRuleRecord, "expires_at_ns" | "created_at_ns"> & { expires_at_ns: string | null };

const ok = async <T>(method: "GET" | "POST" | "DELETE", route: string, body?: unknown, status = 200): Promise<T> => {
  const reply = await request<T>(server, method, route, body);
  expect(reply.status, reply.text).toBe(status);
  return reply.body;
};

/** A failing call of `agent` that occurred a few seconds ago (inside "the last hour"). */
const failing = (type: FailureType, agent: string) => failingCall(type, { agent_name: agent, session_id: uid("s") }, 3_595_000);

async function ingestOne(type: FailureType, agent: string): Promise<InterruptionRecord> {
  const c = failing(type, agent);
  await ingestCalls(server, [c]);
  const [r] = await ok<InterruptionRecord[]>("GET", `/api/sessions/${c.session_id}/interruptions`);
  return r;
}

const get = (id: string) => ok<InterruptionRecord>("GET", `/api/interruptions/${id}`);
const activity = (id: string) => ok<Activity[]>("GET", `/api/interruptions/${id}/activity`);
const listOf = async (q: string) => (await ok<InterruptionRecord[]>("GET", `/api/interruptions?${q}`)).map((r) => r.interruption_id).sort();

describe("snoozing one interruption", () => {
  it("leaves the unresolved views, stays unresolved for the AgentSight routes, and is back on reopen", async () => {
    const agent = uid("snz-one");
    const r = await ingestOne("rate_limit", agent);
    const snoozed = await ok<InterruptionRecord>("POST", `/api/interruptions/${r.interruption_id}/snooze`, { for_secs: 3600, reason: "known provider blip" });
    expect(snoozed).toMatchObject({ status: "snoozed", resolved: false });
    expect(snoozed.snooze_id).toEqual(expect.any(String));

    // the inbox's unresolved views ask for open and acknowledged ones
    expect(await listOf(`agent_name=${agent}&status=open,acknowledged`)).toEqual([]);
    expect(await listOf(`agent_name=${agent}&status=snoozed`)).toEqual([r.interruption_id]);
    // AgentSight's meaning: not resolved
    expect(await listOf(`agent_name=${agent}&resolved=false`)).toEqual([r.interruption_id]);
    expect(await listOf(`agent_name=${agent}&resolved=true`)).toEqual([]);
    expect(await ok("GET", `/api/interruptions/count?agent_name=${agent}`)).toMatchObject({ total: 1, by_severity: { medium: 1 } });
    expect(await ok("GET", `/api/interruptions/stats?agent_name=${agent}`)).toEqual([{ interruption_type: "rate_limit", severity: "medium", count: 1 }]);
    const sessions = await ok<{ session_id: string; total: number }[]>("GET", `/api/interruptions/session-counts?agent_name=${agent}`);
    expect(sessions).toEqual([expect.objectContaining({ session_id: r.session_id, total: 1 })]);

    const [s] = await ok<Snooze[]>("GET", `/api/snoozes?fingerprint=${r.fingerprint}`);
    expect(s).toMatchObject({ id: snoozed.snooze_id, scope: "interruptions", snoozed: 1, reason: "known provider blip", until_escalates: false, ended_at_ns: null });
    const [row] = (await activity(r.interruption_id)).filter((a) => a.action === "snooze");
    expect(row).toMatchObject({ before: { status: "open" }, after: { status: "snoozed" } });
    expect(row.note).toMatch(/^snoozed until \d{4}-\d\d-\d\dT.*: known provider blip$/);

    // reopening by hand wakes it; its snooze, now empty, ends
    expect(await ok<InterruptionRecord>("POST", `/api/interruptions/${r.interruption_id}/reopen`)).toMatchObject({ status: "open", snooze_id: null });
    const [ended] = await ok<Snooze[]>("GET", `/api/snoozes?active=false&fingerprint=${r.fingerprint}`);
    expect(ended).toMatchObject({ id: s.id, snoozed: 0, end_reason: "nothing left snoozed" });
  });

  it("refuses what makes no sense, naming the field", async () => {
    const r = await ingestOne("rate_limit", uid("snz-bad"));
    const route = `/api/interruptions/${r.interruption_id}/snooze`;
    expectError(await request(server, "POST", route, {}), 400, /until_ns/);
    expectError(await request(server, "POST", route, { until: "2001-01-01T00:00:00Z" }), 400, /until: must be in the future/);
    expectError(await request(server, "POST", route, { for_secs: 3600, until_ns: "99999999999999999999" }), 400, /give one of/);
    // past what a 64-bit column of nanoseconds holds (the year 2262): refused, not a database error
    expectError(await request(server, "POST", route, { until_ns: "99999999999999999999" }), 400, /until_ns/);
    expectError(await request(server, "POST", route, { until: "3000-01-01T00:00:00Z" }), 400, /until: /);
    expectError(await request(server, "POST", "/api/mute-rules", { fingerprint: r.fingerprint, expires_at: "3000-01-01T00:00:00Z" }), 400, /expires_at: /);
    expectError(await request(server, "POST", route, { until_occurrences: 0 }), 400, /until_occurrences/);
    expectError(await request(server, "POST", "/api/interruptions/nope/snooze", { for_secs: 3600 }), 404, "Interruption not found");
    await ok("POST", `/api/interruptions/${r.interruption_id}/resolve`);
    expectError(await request(server, "POST", route, { for_secs: 3600 }), 409, /resolved/);
    const viewer = await createToken(server, uid("viewer"), ["read"]);
    expectError(await request(server, "POST", "/api/snoozes", { fingerprint: r.fingerprint, for_secs: 3600 }, viewer.token), 403, /triage/);
  });
});

describe("waking by itself", () => {
  it("after N more occurrences of the fingerprint (counted at ingest)", async () => {
    const agent = uid("snz-count");
    const first = await ingestOne("service_unavailable", agent);
    await ok("POST", `/api/interruptions/${first.interruption_id}/snooze`, { until_occurrences: 2 });
    const second = await ingestOne("service_unavailable", agent);
    // a snooze of chosen interruptions does not hold newcomers, but counts them
    expect(second.status).toBe("open");
    expect((await get(first.interruption_id)).status).toBe("snoozed");
    await ingestOne("service_unavailable", agent);
    expect((await get(first.interruption_id)).status).toBe("open");
    const wake = (await activity(first.interruption_id)).find((a) => a.action === "wake")!;
    expect(wake).toMatchObject({ actor: "system", before: { status: "snoozed" }, after: { status: "open" } });
    expect(wake.note).toMatch(/2 more occurrences since snoozed/);
  });

  it("a snoozed group holds new arrivals, and wakes when its hourly rate reaches 3x", async () => {
    const agent = uid("snz-group");
    const first = await ingestOne("auth_error", agent);
    const s = await ok<Snooze & { changed: number }>("POST", "/api/snoozes", { fingerprint: first.fingerprint, until_escalates: true, reason: "rotating keys" }, 201);
    expect(s).toMatchObject({ scope: "fingerprint", changed: 1, snoozed: 1, baseline_per_hour: 1, baseline_severity: "high" });

    const second = await ingestOne("auth_error", agent); // 2 in the last hour: not yet 3x
    expect(second).toMatchObject({ status: "snoozed", snooze_id: s.id });
    const arrived = (await activity(second.interruption_id))[0];
    expect(arrived).toMatchObject({ actor: "system", action: "snooze", after: { status: "snoozed" } });
    expect(arrived.note).toBe("arrived snoozed: its fingerprint is snoozed (rotating keys)");
    const groups = await ok<{ fingerprint: string; by_status: Record<string, number> }[]>("GET", `/api/interruptions/groups?agent_name=${agent}`);
    expect(groups[0].by_status).toEqual({ open: 0, acknowledged: 0, snoozed: 2, resolved: 0 });

    const third = await ingestOne("auth_error", agent); // 3 in the last hour: escalated
    expect(third.status).toBe("open");
    for (const r of [first, second]) {
      expect((await get(r.interruption_id)).status).toBe("open");
      expect((await activity(r.interruption_id)).at(-1)!.note).toMatch(/^escalated: 3 in the last hour, 3× the 1 per hour when snoozed$/);
    }
    const [ended] = await ok<Snooze[]>("GET", `/api/snoozes?active=false&fingerprint=${first.fingerprint}`);
    expect(ended).toMatchObject({ id: s.id, occurrences: 2, snoozed: 0 });
  });

  it("when its time is up (the sweep)", async () => {
    const r = await ingestOne("network_timeout", uid("snz-time"));
    const until = BigInt(Date.now() + 3000) * 1_000_000n;
    await ok("POST", `/api/interruptions/${r.interruption_id}/snooze`, { until_ns: String(until) });
    expect((await get(r.interruption_id)).status).toBe("snoozed");
    await eventually("the woken interruption", () => get(r.interruption_id), (x) => x.status === "open");
    const wake = (await activity(r.interruption_id)).find((a) => a.action === "wake")!;
    expect(wake).toMatchObject({ actor: "system", note: "the snooze time is up" });
  });

  it("by hand: waking a group snooze returns what it holds to open", async () => {
    const agent = uid("snz-hand");
    const r = await ingestOne("context_overflow", agent);
    const s = await ok<Snooze>("POST", "/api/snoozes", { fingerprint: r.fingerprint, for_secs: 86_400 }, 201);
    const woken = await ok<Snooze>("POST", `/api/snoozes/${s.id}/wake`);
    expect(woken).toMatchObject({ snoozed: 0, end_reason: expect.stringMatching(/^woken by /) });
    expect((await get(r.interruption_id)).status).toBe("open");
    expectError(await request(server, "POST", "/api/snoozes/nope/wake"), 404, "Snooze not found");
  });
});

describe("bulk snooze", () => {
  it("snoozes a selection by filter, one snooze per fingerprint", async () => {
    const agent = uid("snz-bulk");
    const a = await ingestOne("rate_limit", agent);
    const b = await ingestOne("llm_error", agent);
    const result = await ok("POST", "/api/interruptions/bulk", { action: "snooze", filter: { agent_name: agent, resolved: "false" }, snooze: { for_secs: 3600, until_escalates: true } });
    expect(result).toEqual({ matched: 2, changed: 2 });
    expect(await listOf(`agent_name=${agent}&status=snoozed`)).toEqual([a.interruption_id, b.interruption_id].sort());
    for (const r of [a, b]) expect(await ok<Snooze[]>("GET", `/api/snoozes?fingerprint=${r.fingerprint}`)).toEqual([expect.objectContaining({ scope: "interruptions", snoozed: 1 })]);
    expectError(await request(server, "POST", "/api/interruptions/bulk", { action: "snooze", ids: [a.interruption_id] }), 400, /snooze: required for snooze/);
  });
});

describe("mute rules", () => {
  it("make matching arrivals snoozed with the rule's reason; removing the rule wakes them", async () => {
    const agent = uid("mute-agent");
    const rule = await ok<Rule>("POST", "/api/mute-rules", { agent_name: agent, interruption_type: "rate_limit", reason: "noisy staging agent" }, 201);
    expect(rule).toMatchObject({ agent_name: agent, interruption_type: "rate_limit", active: true, muted: 0, expires_at_ns: null });

    const muted = await ingestOne("rate_limit", agent);
    const other = await ingestOne("service_unavailable", agent);
    expect(muted).toMatchObject({ status: "snoozed", resolved: false, snooze_id: rule.snooze_id });
    expect(other.status).toBe("open");
    expect((await activity(muted.interruption_id))[0]).toMatchObject({ actor: "system", action: "mute", note: "muted by a rule: noisy staging agent" });
    expect((await ok<Rule[]>("GET", "/api/mute-rules")).find((r) => r.id === rule.id)).toMatchObject({ muted: 1, snoozed: 1 });

    const removed = await ok<Rule>("DELETE", `/api/mute-rules/${rule.id}`);
    expect(removed.id).toBe(rule.id);
    expect((await get(muted.interruption_id)).status).toBe("open");
    expect((await activity(muted.interruption_id)).at(-1)).toMatchObject({ action: "wake", note: expect.stringMatching(/^the mute rule was removed by /) });
    expect((await ingestOne("rate_limit", agent)).status).toBe("open");
    expectError(await request(server, "DELETE", `/api/mute-rules/${rule.id}`), 404, "Mute rule not found");
  });

  it("by fingerprint, until it expires (the sweep wakes what it muted)", async () => {
    const agent = uid("mute-fp");
    const first = await ingestOne("safety_filter", agent);
    const expires = BigInt(Date.now() + 4000) * 1_000_000n;
    const rule = await ok<Rule>("POST", "/api/mute-rules", { fingerprint: first.fingerprint, expires_at_ns: String(expires) }, 201);
    expect(rule.expires_at_ns).toBe(String(expires));
    const muted = await ingestOne("safety_filter", agent);
    expect(muted.status).toBe("snoozed");
    expect(first.status).toBe("open"); // a rule acts on arrivals only
    await eventually("the expired rule's interruption", () => get(muted.interruption_id), (x) => x.status === "open");
    expect((await activity(muted.interruption_id)).at(-1)).toMatchObject({ action: "wake", note: "the mute rule expired" });
    expect((await ok<Rule[]>("GET", "/api/mute-rules")).find((r) => r.id === rule.id)).toMatchObject({ active: false, muted: 1, snoozed: 0 });
  });

  it("refuses a rule that names neither a fingerprint nor an agent and a type", async () => {
    expectError(await request(server, "POST", "/api/mute-rules", {}), 400, /fingerprint/);
    expectError(await request(server, "POST", "/api/mute-rules", { agent_name: "x" }), 400, /interruption_type: required/);
    expectError(await request(server, "POST", "/api/mute-rules", { fingerprint: "f", agent_name: "x" }), 400, /fingerprint/);
    expectError(await request(server, "POST", "/api/mute-rules", { fingerprint: "f", expires_at: "2001-01-01T00:00:00Z" }), 400, /expires_at: must be in the future/);
    expectError(await request(server, "POST", "/api/mute-rules", { agent_name: "x", interruption_type: "bogus" }), 400, /interruption_type/);
  });

  it("a muted interruption sends no alert", async () => {
    const seen: string[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { interruption?: { interruption_id: string } };
        if (body.interruption) seen.push(body.interruption.interruption_id);
        res.writeHead(200).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const agent = uid("mute-alert");
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await ok("POST", "/api/webhooks", { name: agent, url, min_severity: "medium", agents: [agent], repeat_interval_secs: 0 }, 201);
      await ok("POST", "/api/mute-rules", { agent_name: agent, interruption_type: "rate_limit" }, 201);
      // one batch: both are seen by the same scan of the alert worker
      const calls = [failing("rate_limit", agent), failing("service_unavailable", agent)];
      await ingestCalls(server, calls);
      const ids = new Map<string, InterruptionRecord>();
      for (const c of calls) for (const r of await ok<InterruptionRecord[]>("GET", `/api/sessions/${c.session_id}/interruptions`)) ids.set(r.interruption_type, r);
      expect(ids.get("rate_limit")!.status).toBe("snoozed");
      await eventually("the alert of the unmuted one", async () => [...seen], (s) => s.includes(ids.get("service_unavailable")!.interruption_id));
      expect(seen).toEqual([ids.get("service_unavailable")!.interruption_id]);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });
});

describe("the API document and the CLI", () => {
  it("lists the routes in the OpenAPI document", async () => {
    const doc = await ok<{ paths: Record<string, Record<string, unknown>> }>("GET", "/api/openapi.json");
    expect(Object.keys(doc.paths["/api/interruptions/{id}/snooze"])).toEqual(["post"]);
    expect(Object.keys(doc.paths["/api/snoozes"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/snoozes/{id}/wake"])).toEqual(["post"]);
    expect(Object.keys(doc.paths["/api/mute-rules"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/mute-rules/{id}"])).toEqual(["delete"]);
  });

  it("`sightdesk interruption snooze` snoozes one, or its group", async () => {
    const agent = uid("snz-cli");
    const r = await ingestOne("rate_limit", agent);
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [path.resolve(__dirname, "../../bin/sightdesk.mjs"), ...args, "--url", server.url, "--token", server.token], { env: { ...process.env, TZ: "UTC" } }, (e, stdout, stderr) =>
          resolve({ code: e ? Number(e.code) : 0, stdout, stderr }),
        ),
      );
    const one = await run(["interruption", "snooze", r.interruption_id, "--for", "8h", "--reason", "from the terminal"]);
    expect(one, one.stderr).toMatchObject({ code: 0 });
    expect(one.stdout).toBe(`Snoozed ${r.interruption_id} (medium rate_limit) for 8 h; status: snoozed.\n`);
    expect((await activity(r.interruption_id)).at(-1)!.note).toMatch(/: from the terminal$/);

    const group = await run(["interruption", "snooze", r.interruption_id, "--group", "--occurrences", "5"]);
    expect(group, group.stderr).toMatchObject({ code: 0 });
    expect(group.stdout).toBe(`Snoozed the group ${r.fingerprint} (1 interruption now, and new ones as they arrive) until 5 more occurrences.\n`);

    const none = await run(["interruption", "snooze", r.interruption_id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--for, --until, --occurrences or --escalates/);
  });
});
