// GET /api/interruptions/session-counts on generated data: the whole answer is byte for byte
// what the route answered before it was written by the database (the former algorithm is kept
// here as the reference: group rows in SQL, fold them per session in JavaScript, sort by total),
// for every filter; `limit` + `sort` answer the first sessions of an order; bad values are 400s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { insertRows } from "@/lib/db/multiRow";
import { transaction } from "@/lib/db/sql";
import { DEFAULT_SEVERITY, INTERRUPTION_TYPES, SEVERITIES, UNASSIGNED, UNRESOLVED_STATUSES } from "@/lib/domain/interruptions";
import { expectError, request, type SessionCount } from "./support/http";
import { startServer, type TestServer } from "./support/server";
import { prng } from "../support/prng";

let server: TestServer;
let db: Db;

const DAY_NS = 86_400_000_000_000n;
// 25 days ago: nothing else is there, and it is within the 30-day retention (the sweep would
// delete older rows in the middle of the tests).
const DAY_START = BigInt(Date.now()) * 1_000_000n - 25n * DAY_NS;
const AGENTS = ["CoshNG", "planner", "scribe"];
// Session ids a JSON writer must escape, and ids whose order differs between UTF-16 and UTF-8.
const ODD_IDS = ['quote"and\\slash', "tab\there", "new\nline", "ctl\u0001", "é-accent", "ｆｕｌｌ", "😀-emoji", "\uffff-last", "Z-upper"];

type Row = {
  id: string; sessionId: string | null; agentName: string; type: string; severity: string; status: string; occurredAtNs: bigint;
};


/** 3,000 interruptions over 2 days in 600 sessions (and none), every status, severities AgentSight may bring. */
function generate(): Row[] {
  const rand = prng(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const sessions = [...ODD_IDS, ...Array.from({ length: 600 }, (_, i) => `s-${(i * 7919) % 1000}-${i % 3 ? "a" : "B"}`)];
  return Array.from({ length: 3000 }, (_, i) => {
    const type = pick(INTERRUPTION_TYPES);
    const severity = rand() < 0.03 ? pick(["warning", "CRIT", "info"]) : rand() < 0.1 ? pick(SEVERITIES) : DEFAULT_SEVERITY[type];
    return {
      id: `gen-${String(i).padStart(5, "0")}`,
      sessionId: rand() < 0.05 ? null : pick(sessions),
      agentName: pick(AGENTS),
      type,
      severity,
      status: pick(["open", "open", "acknowledged", "snoozed", "resolved"]),
      occurredAtNs: DAY_START + BigInt(Math.floor(rand() * 2 * 86_400_000)) * 1_000_000n,
    };
  });
}

type Filter = { start: bigint; end: bigint; agents?: string[]; types?: string[]; severities?: string[]; statuses?: string[] };

const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The former answer: (session, type, severity) groups in the order SQLite's GROUP BY gave them
 * (no session first, then byte order), folded per session in that order, sorted by total (stable).
 */
function reference(rows: Row[], f: Filter): SessionCount[] {
  const statuses = (f.statuses ?? UNRESOLVED_STATUSES).filter((s) => (UNRESOLVED_STATUSES as readonly string[]).includes(s));
  const groups = new Map<string, { sessionId: string | null; type: string; severity: string; n: number }>();
  for (const r of rows) {
    if (r.occurredAtNs < f.start || r.occurredAtNs > f.end || !statuses.includes(r.status)) continue;
    if ((f.agents && !f.agents.includes(r.agentName)) || (f.types && !f.types.includes(r.type)) || (f.severities && !f.severities.includes(r.severity))) continue;
    const key = JSON.stringify([r.sessionId, r.type, r.severity]);
    const g = groups.get(key) ?? { sessionId: r.sessionId, type: r.type, severity: r.severity, n: 0 };
    g.n += 1;
    groups.set(key, g);
  }
  const ordered = [...groups.values()].sort(
    (a, b) => (a.sessionId === null ? -1 : 0) - (b.sessionId === null ? -1 : 0) || bytes(a.sessionId ?? "", b.sessionId ?? "") || bytes(a.type, b.type) || bytes(a.severity, b.severity),
  );
  const out = new Map<string, SessionCount>();
  for (const g of ordered) {
    const id = g.sessionId ?? UNASSIGNED;
    let e = out.get(id);
    if (!e) out.set(id, (e = { session_id: id, total: 0, by_severity: { critical: 0, high: 0, medium: 0, low: 0 }, types: [] }));
    e.total += g.n;
    if (g.severity in e.by_severity) e.by_severity[g.severity as keyof typeof e.by_severity] += g.n;
    e.types.push({ interruption_type: g.type, severity: g.severity, count: g.n });
  }
  return [...out.values()].sort((a, b) => b.total - a.total);
}

/** More critical first, then more high, … */
const bySeverities = (a: SessionCount, b: SessionCount) => {
  for (const s of SEVERITIES) if (a.by_severity[s] !== b.by_severity[s]) return b.by_severity[s] - a.by_severity[s];
  return 0;
};
const byId = (a: SessionCount, b: SessionCount) => Number(b.session_id === UNASSIGNED) - Number(a.session_id === UNASSIGNED) || bytes(a.session_id, b.session_id);
const ORDERS = {
  total: (a: SessionCount, b: SessionCount) => b.total - a.total || bySeverities(a, b) || byId(a, b),
  severity: (a: SessionCount, b: SessionCount) => bySeverities(a, b) || b.total - a.total || byId(a, b),
};

function query(f: Filter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ start_ns: String(f.start), end_ns: String(f.end), ...extra });
  if (f.agents) q.set("agent_name", f.agents.join(","));
  if (f.types) q.set("interruption_type", f.types.join(","));
  if (f.severities) q.set("severity", f.severities.join(","));
  if (f.statuses) q.set("status", f.statuses.join(","));
  return `/api/interruptions/session-counts?${q}`;
}

const get = (route: string) => request<SessionCount[]>(server, "GET", route);

let rows: Row[];

beforeAll(async () => {
  server = await startServer();
  db = createDb(server.databaseUrl);
  rows = generate();
  await transaction(db, (sql) =>
    insertRows(
      sql,
      "Interruption",
      rows.map((r) => ({
        ...r, lastSeenNs: r.occurredAtNs, occurrences: 1, detail: "{}", fingerprint: `fp-${r.type}`, createdAtNs: r.occurredAtNs,
        resolvedBy: r.status === "resolved" ? "test" : null, resolvedAtNs: r.status === "resolved" ? r.occurredAtNs : null,
      })),
      { key: ["id"], update: "nothing" },
    ),
  );
});

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
});

const day: Filter = { start: DAY_START, end: DAY_START + DAY_NS };
const FILTERS: Array<[string, Filter]> = [
  ["a day", day],
  ["both days", { start: DAY_START, end: DAY_START + 2n * DAY_NS }],
  ["an hour", { start: DAY_START + 5n * 3_600_000_000_000n, end: DAY_START + 6n * 3_600_000_000_000n }],
  ["one agent", { ...day, agents: ["planner"] }],
  ["two types", { ...day, types: ["rate_limit", "agent_crash"] }],
  ["severities", { ...day, severities: ["critical", "high"] }],
  ["acknowledged only", { ...day, statuses: ["acknowledged"] }],
  ["resolved only (nothing)", { ...day, statuses: ["resolved"] }],
];

describe("session-counts: the whole answer (AgentSight's shape and order)", () => {
  it.each(FILTERS)("is byte for byte the former answer: %s", async (_name, f) => {
    const reply = await get(query(f));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.text).toBe(JSON.stringify(reference(rows, f)));
  });

  it("has entries for the odd session ids, escaped as JSON.stringify escapes them", async () => {
    const reply = await get(query({ start: DAY_START, end: DAY_START + 2n * DAY_NS }));
    const ids = reply.body.map((e) => e.session_id);
    for (const id of ODD_IDS) expect(ids).toContain(id);
    expect(ids.filter((id) => id === UNASSIGNED)).toHaveLength(1);
  });

  it("stays the former answer after triage moved interruptions in and out (bounds the counts keep widen, never narrow)", async () => {
    const resolve = rows.filter((r) => r.status !== "resolved").slice(0, 400);
    const reopen = rows.filter((r) => r.status === "resolved").slice(0, 150);
    for (const [ids, action] of [[resolve.map((r) => r.id), "resolve"], [reopen.map((r) => r.id), "reopen"]] as const) {
      const reply = await request(server, "POST", "/api/interruptions/bulk", { ids, action });
      expect(reply.status, reply.text).toBe(200);
    }
    for (const r of resolve) r.status = "resolved";
    for (const r of reopen) r.status = "open";
    for (const [, f] of FILTERS.slice(0, 4)) expect((await get(query(f))).text).toBe(JSON.stringify(reference(rows, f)));
  });
});

describe("session-counts: limit and sort", () => {
  const cases: Array<[string, "total" | "severity", number, Filter]> = [
    ["a day", "total", 10, day],
    ["a day", "severity", 10, day],
    ["both days", "total", 60, { start: DAY_START, end: DAY_START + 2n * DAY_NS }],
    ["both days", "severity", 200, { start: DAY_START, end: DAY_START + 2n * DAY_NS }],
    ["an hour", "total", 5, FILTERS[2][1]],
    ["one agent", "severity", 7, { ...day, agents: ["scribe"] }],
    ["severities", "total", 3, { ...day, severities: ["high"] }],
    ["more than there are", "total", 5000, { ...day, types: ["agent_crash"] }],
  ];
  it.each(cases)("the top sessions of %s by %s (limit %i) are the first of the whole answer in that order", async (_name, sort, limit, f) => {
    const reply = await get(query(f, { limit: String(limit), sort }));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.text).toBe(JSON.stringify(reference(rows, f).sort(ORDERS[sort]).slice(0, limit)));
  });

  it("without sort, limit keeps the default order", async () => {
    const reply = await get(query(day, { limit: "15" }));
    expect(reply.text).toBe(JSON.stringify(reference(rows, day).slice(0, 15)));
  });

  it("ranks by total with ties by the worse severities, or by the worst severity first", async () => {
    // three sessions of their own, in a window of their own
    const at = DAY_START + 10n * DAY_NS + 1n;
    const own = (session: string, severities: string[]) =>
      severities.map((severity, i) => ({
        id: `own-${session}-${i}`, sessionId: session, agentName: "x", type: "llm_error", severity, status: "open", occurredAtNs: at + BigInt(i),
        lastSeenNs: at, occurrences: 1, detail: "{}", fingerprint: "fp", createdAtNs: at,
      }));
    await transaction(db, (sql) =>
      insertRows(sql, "Interruption", [...own("many-medium", ["medium", "medium", "medium"]), ...own("one-critical", ["critical"]), ...own("high-and-low", ["high", "low", "low"])], {
        key: ["id"], update: "nothing",
      }),
    );
    const window: Filter = { start: at, end: at + 10n };
    const ids = async (sort: string) => (await get(query(window, { limit: "3", sort }))).body.map((e) => e.session_id);
    expect(await ids("total")).toEqual(["high-and-low", "many-medium", "one-critical"]);
    expect(await ids("severity")).toEqual(["one-critical", "high-and-low", "many-medium"]);
    // the whole answer (no limit) in the order asked for too, for a time window alone as with other filters
    const whole = async (sort: string, more: Record<string, string> = {}) => (await get(query(window, { sort, ...more }))).body.map((e) => e.session_id);
    expect(await whole("total")).toEqual(["high-and-low", "many-medium", "one-critical"]);
    expect(await whole("severity")).toEqual(["one-critical", "high-and-low", "many-medium"]);
    expect(await whole("severity", { agent_name: "x" })).toEqual(["one-critical", "high-and-low", "many-medium"]);
    expect((await get(query(window, { limit: "1", sort: "severity" }))).body).toEqual([
      { session_id: "one-critical", total: 1, by_severity: { critical: 1, high: 0, medium: 0, low: 0 }, types: [{ interruption_type: "llm_error", severity: "critical", count: 1 }] },
    ]);
  });

  it("follows triage: a resolved interruption leaves the top sessions", async () => {
    const at = DAY_START + 20n * DAY_NS + 1n;
    await transaction(db, (sql) =>
      insertRows(
        sql,
        "Interruption",
        ["a", "b", "c"].map((x) => ({
          id: `triage-${x}`, sessionId: "triaged", agentName: "x", type: "agent_crash", severity: "critical", status: "open", occurredAtNs: at,
          lastSeenNs: at, occurrences: 1, detail: "{}", fingerprint: "fp", createdAtNs: at,
        })),
        { key: ["id"], update: "nothing" },
      ),
    );
    const window: Filter = { start: at, end: at };
    expect((await get(query(window, { limit: "1", sort: "total" }))).body[0]).toMatchObject({ session_id: "triaged", total: 3 });
    const resolved = await request(server, "POST", "/api/interruptions/bulk", { ids: ["triage-a", "triage-b"], action: "resolve" });
    expect(resolved.status, resolved.text).toBe(200);
    expect((await get(query(window, { limit: "1", sort: "total" }))).body[0]).toMatchObject({ session_id: "triaged", total: 1 });
    await request(server, "POST", "/api/interruptions/triage-c/resolve");
    expect((await get(query(window, { limit: "1", sort: "total" }))).body).toEqual([]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=5001", "limit"],
    ["limit=ten", "limit"],
    ["limit=-1", "limit"],
    ["sort=worst", "sort"],
    ["sort=", "sort"],
  ])("%s is a 400 naming %s", async (param, field) => {
    const reply = await get(`/api/interruptions/session-counts?${param}`);
    expectError(reply, 400, new RegExp(`^${field}: `));
  });

  it("is documented in the OpenAPI document", async () => {
    const doc = (await request<{ paths: Record<string, { get: { parameters: Array<{ name: string; schema: { enum?: string[] } }> } }> }>(server, "GET", "/api/openapi.json")).body;
    const params = doc.paths["/api/interruptions/session-counts"].get.parameters;
    expect(params.map((p) => p.name)).toEqual(expect.arrayContaining(["limit", "sort", "start_ns", "agent_name"]));
    expect(params.find((p) => p.name === "sort")?.schema.enum).toEqual(["total", "severity"]);
  });
});
