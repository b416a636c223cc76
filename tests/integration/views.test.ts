// Saved inbox views (issue 15, part 3) against the real server and database: saving filters
// private or shared, who sees and changes what (owners; admins for shared views), each view's
// count of unresolved matching interruptions — the same number the count route gives for the
// same filters, `me` meaning the caller — names and queries checked with 400s naming the field,
// and the stable /inbox/views/<id> link a runbook can hold.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ns, uid } from "./support/payloads";
import { createToken, expectError, failingCall, ingestCalls, request, sessionInterruptions, type CountBody, type CreatedToken, type InterruptionRecord } from "./support/http";
import { startServer, type TestServer } from "./support/server";
import { passwordSignIn, withCookie } from "./support/session";

type View = {
  id: string; name: string; query: string; shared: boolean; owner: string; mine: boolean; can_edit: boolean;
  url: string; inbox_url: string; unresolved: number | null; created_at_ns: string; updated_at_ns: string; updated_by: string;
};

let server: TestServer;
let alice: CreatedToken; // read scope: makes views
let bob: CreatedToken; // read scope: another team member
let admin: CreatedToken;
const agent = uid("ViewAgent");
const session = uid("view-session");
let rows: InterruptionRecord[] = [];

beforeAll(async () => {
  server = await startServer();
  alice = await createToken(server, uid("alice"), ["read"]);
  bob = await createToken(server, uid("bob"), ["read"]);
  admin = await createToken(server, uid("admin"), ["admin"]);
  // 3 rate_limit (medium), 2 auth_error (high), 1 llm_error (high) of one agent
  const calls = [
    ...[0, 1, 2].map((i) => failingCall("rate_limit", { agent_name: agent, session_id: session }, i * 1000)),
    ...[3, 4].map((i) => failingCall("auth_error", { agent_name: agent, session_id: session }, i * 1000)),
    failingCall("llm_error", { agent_name: agent, session_id: session }, 5000),
  ];
  await ingestCalls(server, calls);
  rows = await sessionInterruptions(server, session);
  expect(rows).toHaveLength(6);
});
afterAll(async () => {
  await server?.stop();
});

const as = (who: CreatedToken | null) => ({
  get: <T>(route: string) => request<T>(server, "GET", route, undefined, who?.token ?? null),
  post: <T>(route: string, body?: unknown) => request<T>(server, "POST", route, body, who?.token ?? null),
  del: <T>(route: string) => request<T>(server, "DELETE", route, undefined, who?.token ?? null),
});

async function save(who: CreatedToken, body: { name: string; query: string; shared?: boolean }): Promise<View> {
  const reply = await as(who).post<View>("/api/views", body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function list(who: CreatedToken): Promise<View[]> {
  const reply = await as(who).get<View[]>("/api/views");
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** The ISO time of a payload offset (whole milliseconds, as the inbox's custom range keeps them). */
const iso = (offsetMs: number) => new Date(Number(BigInt(ns(offsetMs)) / 1_000_000n)).toISOString();

/** What the count route says for the same filters. */
async function countRoute(query: string, who: CreatedToken = admin): Promise<number> {
  const reply = await as(who).get<CountBody>(`/api/interruptions/count?${query}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.total;
}

describe("saving views", () => {
  it("saves a private view in canonical form, with its link and count", async () => {
    const v = await save(alice, { name: "Rate limits", query: `?severity=medium&agent_name=${agent}&pages=3&view=old&range=24h` });
    expect(v).toMatchObject({ name: "Rate limits", shared: false, mine: true, can_edit: true, owner: `token:${alice.name}`, updated_by: `token:${alice.name}` });
    expect(v.query).toBe(`severity=medium&agent_name=${agent}`);
    expect(v.url).toBe(`/inbox/views/${v.id}`);
    expect(v.inbox_url).toBe(`/inbox?${v.query}&view=${v.id}`);
    expect(v.unresolved).toBe(3);
    expect(v.unresolved).toBe(await countRoute(`agent_name=${agent}&severity=medium`));
  });

  it("keeps a private view to its owner: others neither list, read, change nor delete it", async () => {
    const v = await save(alice, { name: uid("private"), query: `agent_name=${agent}` });
    expect((await list(alice)).map((x) => x.id)).toContain(v.id);
    expect((await list(bob)).map((x) => x.id)).not.toContain(v.id);
    expect((await list(admin)).map((x) => x.id)).not.toContain(v.id);
    expectError(await as(bob).get(`/api/views/${v.id}`), 404, /View not found/);
    expectError(await as(bob).post(`/api/views/${v.id}`, { name: "mine now" }), 404);
    expectError(await as(admin).del(`/api/views/${v.id}`), 404);
    expect((await as(alice).get<View>(`/api/views/${v.id}`)).body.name).toBe(v.name);
  });

  it("shows a shared view to everyone; its owner or an admin changes it, nobody else", async () => {
    const v = await save(alice, { name: uid("Auth failures"), query: `interruption_type=auth_error&agent_name=${agent}`, shared: true });
    const seen = (await list(bob)).find((x) => x.id === v.id)!;
    expect(seen).toMatchObject({ shared: true, mine: false, can_edit: false, owner: `token:${alice.name}`, unresolved: 2 });
    expectError(await as(bob).post(`/api/views/${v.id}`, { name: "hijacked" }), 403, /owner or an admin/);
    expectError(await as(bob).del(`/api/views/${v.id}`), 403);

    const byAdmin = await as(admin).post<View>(`/api/views/${v.id}`, { query: `interruption_type=auth_error,llm_error&agent_name=${agent}` });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.body).toMatchObject({ can_edit: true, mine: false, owner: `token:${alice.name}`, updated_by: `token:${admin.name}`, unresolved: 3 });

    const renamed = await as(alice).post<View>(`/api/views/${v.id}`, { name: `${v.name} (team)` });
    expect(renamed.body.name).toBe(`${v.name} (team)`);
    // unsharing takes it out of everyone else's menu
    await as(alice).post(`/api/views/${v.id}`, { shared: false });
    expect((await list(bob)).map((x) => x.id)).not.toContain(v.id);
    const gone = await as(alice).del<View>(`/api/views/${v.id}`);
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body.id).toBe(v.id);
    expectError(await as(alice).get(`/api/views/${v.id}`), 404);
  });

  it("refuses a name already used where the view would show, and bad fields with 400s naming them", async () => {
    const name = uid("Team view");
    await save(alice, { name, query: "", shared: true });
    expectError(await as(bob).post("/api/views", { name, query: "severity=high", shared: true }), 409, /already named/);
    // private names are per owner: both may keep one of that name
    await save(alice, { name, query: "severity=high" });
    await save(bob, { name, query: "severity=high" });
    expectError(await as(alice).post("/api/views", { name, query: "" }), 409);

    expectError(await as(alice).post("/api/views", { name: "  ", query: "" }), 400, /name/);
    expectError(await as(alice).post("/api/views", { query: "" }), 400, /name/);
    expectError(await as(alice).post("/api/views", { name: "x", query: "severity=urgent" }), 400, /query\.severity/);
    expectError(await as(alice).post("/api/views", { name: "x", query: "start_ns=1" }), 400, /unknown parameter 'start_ns'/);
    expectError(await as(alice).post("/api/views", { name: "x", query: "range=custom&from=someday" }), 400, /query\.from/);
    // a year's typo: before, 500 after the view was stored, and the views list answered 500 from then on
    const before = (await list(alice)).length;
    expectError(await as(alice).post("/api/views", { name: uid("typo"), query: "range=custom&from=2925-01-01" }), 400, /query\.from/);
    expect((await list(alice)).length).toBe(before);
    expectError(await as(alice).post("/api/views", { name: "x", query: "", shared: "yes" }), 400, /shared/);
    expectError(await as(alice).post(`/api/views/${(await list(alice))[0].id}`, {}), 400, /at least one field/);
    expectError(await as(null).get("/api/views"), 401);
  });
});

describe("counts", () => {
  it("counts views of long lists, more of them than one statement binds", async () => {
    const owner = await createToken(server, uid("long lists"), ["read"]);
    // 800 one- and two-letter agents and as many fingerprints per view (about the most a stored
    // query of 4,000 characters holds, its commas written %2C), 41 views
    const letters = [..."abcdefghijklmnopqrstuvwxyz0123456789"];
    const names = [...letters, ...letters.flatMap((a) => letters.map((b) => a + b))];
    const query = `agent_name=${names.slice(0, 400).join(",")}&fingerprint=${names.slice(400, 800).join(",")}`;
    for (let i = 0; i < 41; i++) await save(owner, { name: `long ${i}`, query });
    // before, 500: 41 × 800 values and more in one statement, past the 32,766 SQLite binds
    const views = await list(owner);
    expect(views.filter((v) => v.name.startsWith("long ")).map((v) => v.unresolved)).toEqual(Array(41).fill(0));
    // a query longer than that as stored is refused, and not stored (before, stored, then refused)
    const tooLong = `fingerprint=${names.slice(0, 1_300).join(",")}`;
    expectError(await as(owner).post("/api/views", { name: "too long", query: tooLong }), 400, /query: at most 4000 characters \(as stored/);
    expect((await list(owner)).some((v) => v.name === "too long")).toBe(false);
  }, 60_000);

  it("gives every view its count in one request, equal to the count route's for the same filters", async () => {
    const filters: [string, string][] = [
      [`agent_name=${agent}`, `agent_name=${agent}`],
      [`agent_name=${agent}&severity=high`, `agent_name=${agent}&severity=high`],
      [`agent_name=${agent}&interruption_type=rate_limit,llm_error`, `agent_name=${agent}&interruption_type=rate_limit,llm_error`],
      [`agent_name=${agent}&tab=acknowledged`, `agent_name=${agent}&status=acknowledged`],
      [`agent_name=${agent}&q=auth_error`, `agent_name=${agent}&q=auth_error`],
      [`agent_name=${agent}&range=7d`, `agent_name=${agent}&start_ns=${(BigInt(Date.now() - 7 * 86_400_000) * 1_000_000n).toString()}`],
      // a fixed window holding the interruptions of the third and fourth calls only
      [`agent_name=${agent}&range=custom&from=${iso(2500)}&to=${iso(4500)}`, `agent_name=${agent}&start_ns=${ns(2500)}&end_ns=${ns(4500)}`],
    ];
    // one acknowledged interruption, so the acknowledged tab has one
    const ack = await as(admin).post(`/api/interruptions/${rows.find((r) => r.interruption_type === "auth_error")!.interruption_id}/acknowledge`);
    expect(ack.status, ack.text).toBe(200);
    const made = [];
    for (const [query] of filters) made.push(await save(bob, { name: uid("count"), query }));
    const listed = new Map((await list(bob)).map((v) => [v.id, v.unresolved]));
    for (let i = 0; i < filters.length; i++) {
      expect(listed.get(made[i].id), filters[i][0]).toBe(await countRoute(filters[i][1]));
    }
    expect(listed.get(made[3].id)).toBe(1);
    expect(listed.get(made[6].id)).toBeGreaterThan(0);
    expect(listed.get(made[6].id)).toBeLessThan(listed.get(made[0].id)!);
  });

  it("counts unresolved interruptions only, and follows triage as it happens", async () => {
    const v = await save(alice, { name: uid("llm errors"), query: `agent_name=${agent}&interruption_type=llm_error` });
    expect(v.unresolved).toBe(1);
    const resolved = await as(admin).post(`/api/interruptions/${rows.find((r) => r.interruption_type === "llm_error")!.interruption_id}/resolve`);
    expect(resolved.status, resolved.text).toBe(200);
    expect((await as(alice).get<View>(`/api/views/${v.id}`)).body.unresolved).toBe(0);
    // a view of resolved interruptions matches no unresolved one
    const done = await save(alice, { name: uid("resolved"), query: `agent_name=${agent}&tab=resolved` });
    expect(done.unresolved).toBe(0);
  });

  it("reads `me` in a shared view as whoever looks at it", async () => {
    const target = rows.find((r) => r.interruption_type === "rate_limit")!;
    const assigned = await as(admin).post(`/api/interruptions/${target.interruption_id}/assign`, { assignee: bob.name });
    expect(assigned.status, assigned.text).toBe(200);
    const review = await save(alice, { name: uid("My review"), query: `agent_name=${agent}&tab=review`, shared: true });
    const forAlice = (await list(alice)).find((v) => v.id === review.id)!.unresolved;
    const forBob = (await list(bob)).find((v) => v.id === review.id)!.unresolved;
    // open and unassigned for both; Bob also has the one assigned to him
    expect(forBob).toBe(forAlice! + 1);
    expect(forAlice).toBe(await countRoute(`agent_name=${agent}&status=open&assignee=none,me`, alice));
    expect(forBob).toBe(await countRoute(`agent_name=${agent}&status=open&assignee=none,me`, bob));
  });
});

describe("the view's link", () => {
  it("opens the inbox with the view's current query for a signed-in user, and hides others' private views", async () => {
    const email = `${uid("viewer")}@example.com`.toLowerCase();
    const created = await as(admin).post("/api/users", { email, role: "viewer", password: "viewer-pass-123" });
    expect(created.status, created.text).toBe(201);
    const cookie = (await passwordSignIn(server, email, "viewer-pass-123")).cookie!;
    expect(cookie).toBeTruthy();

    const shared = await save(alice, { name: uid("Runbook view"), query: `agent_name=${agent}&severity=high`, shared: true });
    const open = await withCookie(server, cookie, shared.url);
    expect(open.status).toBeGreaterThanOrEqual(300);
    expect(open.status).toBeLessThan(400);
    const target = new URL(open.headers.get("location")!, server.url);
    expect(`${target.pathname}${target.search}`).toBe(shared.inbox_url);

    // an edit later changes where the same link leads
    await as(alice).post(`/api/views/${shared.id}`, { query: `agent_name=${agent}&severity=medium` });
    const again = new URL((await withCookie(server, cookie, shared.url)).headers.get("location")!, server.url);
    expect(again.searchParams.get("severity")).toBe("medium");

    // the user's own views work through the cookie as well
    const own = await withCookie(server, cookie, "/api/views", { method: "POST", body: JSON.stringify({ name: "Mine", query: "severity=critical" }) });
    expect(own.status).toBe(201);
    const ownView = (await own.json()) as View;
    expect(ownView.owner).toBe(`user:${email}`);

    const secret = await save(alice, { name: uid("secret"), query: "" });
    expect((await withCookie(server, cookie, secret.url)).status).toBe(404);
    // signed out: to the sign-in page
    const anonymous = await fetch(`${server.url}${shared.url}`, { redirect: "manual" });
    expect(anonymous.headers.get("location") ?? "").toMatch(/\/login/);
  });
});
