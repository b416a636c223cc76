// Several server processes on one PostgreSQL (SPEC §7, issue 14): three production servers share a
// database and a data directory, ingest and triage go through all of them, and one is killed
// with SIGKILL while traffic flows. Then: no request to the survivors failed, nothing that was
// acknowledged is lost, every interruption reached a real webhook receiver under exactly one
// delivery id, the sweep ran once per interval (its log in the SweepRun table), the dead
// process's work was taken over, a token revoked through one process is refused by the others
// within 5 s, and a new interruption ingested through one process shows in another's inbox poll.
// Several processes on one SQLite file are not supported: on SQLite a single server runs the
// same coordination (leases, claims, the sweep log) in a reduced form.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createTestDatabase, testPostgresUrl, type TestDatabase } from "../support/database";
import { createToken, nsAgo, request, sleep, type InterruptionRecord } from "./support/http";
import { uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";
import { passwordSignIn, withCookie } from "./support/session";
import { waitFor as poll, type PollOptions } from "../support/waitFor";

const NS_PER_SEC = 1_000_000_000n;
/** The sweep interval the servers run with (check_interval_secs): short, so a run sees several. */
const INTERVAL_SECS = 1;
const ENV = { SIGHTDESK_CHECK_INTERVAL_SECS: String(INTERVAL_SECS), SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8" };

type Received = { deliveryId: string; interruptionId: string };

/** A webhook receiver that answers after a moment, so deliveries are in flight when a server dies. */
async function startReceiver(delayMs: number) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { interruption: { interruption_id: string } };
      received.push({ deliveryId: String(req.headers["x-sightdesk-delivery"]), interruptionId: body.interruption.interruption_id });
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end("{}"), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { received, url, close };
}

/** The three processes need longer than one: polls every 200 ms for up to 60 s unless told. */
const waitFor = <T>(what: string, probe: () => Promise<T>, options?: PollOptions) => poll(what, probe, { timeoutMs: 60_000, everyMs: 200, ...options });

/** A process_exit with oom: one critical agent_crash per pid. */
const crash = (agent: string, pid: number) => ({ kind: "process_exit", pid, agent_name: agent, host: "cluster-host", at_ns: nsAgo(1000), oom: true });

async function createHook(server: TestServer, agent: string, url: string): Promise<void> {
  const reply = await request(server, "POST", "/api/webhooks", { name: agent, url, min_severity: "high", repeat_interval_secs: 0, agents: [agent] });
  expect(reply.status, reply.text).toBe(201);
}

async function listAgent(server: TestServer, agent: string, extra = ""): Promise<InterruptionRecord[]> {
  const reply = await request<InterruptionRecord[]>(server, "GET", `/api/interruptions?agent_name=${agent}&limit=1000${extra}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** The holder name a server logs at startup (its name on leases, claims and the sweep log). */
const holderOf = (server: TestServer) => /background work shared with other processes on this database as (\S+)/.exec(server.log())?.[1] ?? null;

/** Sweep runs started in [from, now), oldest first: one per interval, never two at once. */
async function expectOneSweepPerInterval(db: Db, from: bigint) {
  const runs = await db.sweepRun.findMany({ where: { startedAtNs: { gte: from } }, orderBy: { startedAtNs: "asc" } });
  expect(runs.length).toBeGreaterThan(1);
  for (let i = 1; i < runs.length; i++) {
    expect(runs[i].startedAtNs - runs[i - 1].startedAtNs).toBeGreaterThanOrEqual(BigInt(INTERVAL_SECS) * NS_PER_SEC);
    // the previous run had finished (or its process died: abandoned) before this one started
    const previous = runs[i - 1];
    if (previous.status === "done") expect(previous.finishedAtNs!).toBeLessThanOrEqual(runs[i].startedAtNs);
    else expect(previous.status).toBe("abandoned");
  }
  expect(runs.filter((r) => r.status === "failed")).toEqual([]);
  return runs;
}

const postgres = testPostgresUrl();

describe.skipIf(!postgres)("three server processes on one PostgreSQL (needs TEST_DATABASE_URL; skipped on SQLite: several processes on one SQLite file are not supported)", () => {
  let database: TestDatabase;
  let db: Db;
  let dataDir: string;
  let servers: TestServer[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver(300);
    database = await createTestDatabase("cluster");
    db = createDb(database.url);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-cluster-"));
    // one after the other, as `npm run start:cluster` does: the first makes the token file and session key
    for (let i = 0; i < 3; i++) servers.push(await startServer(ENV, { dataDir, databaseUrl: database.url }));
  }, 240_000);

  afterAll(async () => {
    for (const s of servers) await s.stop();
    await receiver?.close();
    await db?.$disconnect();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("serve ingest and triage through every process, survive one killed mid-traffic, alert once per interruption and sweep once per interval", async () => {
    const [a, b, victim] = servers;
    const holders = servers.map(holderOf);
    expect(new Set(holders).size).toBe(3);
    const agent = uid("Cluster");
    await createHook(a, agent, receiver.url);
    const startedNs = BigInt(Date.now()) * 1_000_000n;

    // three clients, one per process, each ingesting crashes and acknowledging what it finds
    const failures: string[] = [];
    const acknowledgedPids: number[] = [];
    let pid = 10_000;
    let killed = false;
    /** deliveries the victim was sending when it was killed: the survivors must take them over */
    let cutOff: string[] = [];
    /** Kills the victim while it is sending alerts (it claims deliveries as it sends them). */
    async function killMidSend() {
      cutOff = await waitFor("the victim sending an alert", async () => {
        const rows = await db.alertDelivery.findMany({ where: { claimedBy: holders[2], status: "pending" }, select: { id: true } });
        return rows.length > 0 && rows.map((r) => r.id);
      }, { timeoutMs: 20_000 });
      killed = true;
      await victim.kill("SIGKILL");
    }
    async function client(server: TestServer, rounds: number, killAfter?: number) {
      for (let round = 0; round < rounds; round++) {
        if (server === victim && killed) return;
        const pids = [pid++, pid++];
        const ingest = await request(server, "POST", "/api/ingest/events", pids.map((p) => crash(agent, p)));
        if (ingest.status === 200) acknowledgedPids.push(...pids);
        else failures.push(`ingest via ${server.url}: ${ingest.status} ${ingest.text}`);
        const open = await request<InterruptionRecord[]>(server, "GET", `/api/interruptions?agent_name=${agent}&status=open&limit=3`);
        if (open.status !== 200) failures.push(`list via ${server.url}: ${open.status}`);
        for (const r of open.status === 200 ? open.body : []) {
          const ack = await request(server, "POST", `/api/interruptions/${r.interruption_id}/acknowledge`, {});
          // two clients may acknowledge the same one: the second finds it acknowledged already (409)
          if (ack.status !== 200 && ack.status !== 409) failures.push(`acknowledge via ${server.url}: ${ack.status} ${ack.text}`);
        }
        if (round === killAfter) await killMidSend(); // while the other two clients keep going
      }
    }
    await Promise.all([client(a, 20), client(b, 20), client(victim, 20, 6)]);
    expect(killed).toBe(true);
    expect(failures).toEqual([]);

    // nothing acknowledged is lost: one interruption per pid, seen by both survivors
    const stored = await waitFor("every acknowledged crash stored", async () => {
      const rows = await listAgent(a, agent);
      return rows.length >= acknowledgedPids.length && rows;
    });
    expect(new Set(stored.map((r) => Number(r.pid)))).toEqual(new Set(acknowledgedPids));
    expect((await listAgent(b, agent)).length).toBe(stored.length);

    // every interruption alerted, each under exactly one delivery id (the dead process's claims
    // expired and the survivors sent them; a send it had started may reach the receiver again,
    // with the same id, which is what receivers deduplicate on)
    const ids = new Set(stored.map((r) => r.interruption_id));
    await waitFor("an alert for every interruption", async () => ids.size > 0 && [...ids].every((id) => receiver.received.some((r) => r.interruptionId === id)), { timeoutMs: 90_000 });
    const deliveriesOf = new Map<string, Set<string>>();
    for (const r of receiver.received) deliveriesOf.set(r.interruptionId, (deliveriesOf.get(r.interruptionId) ?? new Set()).add(r.deliveryId));
    expect([...deliveriesOf.keys()].sort()).toEqual([...ids].sort());
    expect([...deliveriesOf.values()].every((d) => d.size === 1)).toBe(true);
    const repeats = receiver.received.length - ids.size;
    expect(repeats).toBeLessThanOrEqual(8); // at most what one process had in flight when it died
    await waitFor("every delivery recorded", async () => (await db.alertDelivery.count({ where: { status: { not: "delivered" } } })) === 0);
    // what the victim was sending was sent by a survivor once its claims expired
    const takenOver = await db.alertDelivery.findMany({ where: { id: { in: cutOff } } });
    expect(takenOver.map((d) => [d.status, d.claimedBy])).toEqual(cutOff.map(() => ["delivered", null]));
    console.log(`[cluster] ${ids.size} interruptions alerted; ${cutOff.length} deliveries cut off by the kill and taken over; ${repeats} repeated receipt(s)`);

    // the sweep: once per interval across the three, and the survivors carry on after the kill
    const killedAtNs = BigInt(Date.now()) * 1_000_000n;
    await waitFor("sweeps by the survivors", async () => (await db.sweepRun.count({ where: { startedAtNs: { gt: killedAtNs }, status: "done" } })) >= 2);
    const runs = await expectOneSweepPerInterval(db, startedNs);
    expect(runs.filter((r) => r.startedAtNs > killedAtNs).every((r) => r.holder !== holders[2])).toBe(true);
    // leases the dead process held have passed to a survivor
    const scan = await waitFor("the alert scan lease held by a survivor", async () => {
      const lease = await db.lease.findUnique({ where: { name: "alerts.scan" } });
      return lease && lease.holder !== holders[2] && lease;
    });
    expect(holders.slice(0, 2)).toContain(scan.holder);
  }, 240_000);

  it("sign a user in through one process for every other with one key; a process with a key of its own says so at start", async () => {
    const [a, b] = servers; // the third was killed by the first test
    const address = `${uid("everywhere")}@example.test`.toLowerCase();
    expect((await request(a, "POST", "/api/users", { email: address, role: "viewer", password: "everywhere-pass-1" })).status).toBe(201);
    const { cookie } = await passwordSignIn(a, address, "everywhere-pass-1");
    expect(cookie).not.toBeNull();
    expect((await withCookie(b, cookie!, "/api/interruptions/count")).status).toBe(200);

    // a data directory of its own, no NEXTAUTH_SECRET: its own key, which it says at start
    const ownDir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-cluster-own-"));
    const apart = await startServer(ENV, { dataDir: ownDir, databaseUrl: database.url });
    try {
      expect(apart.log()).toMatch(/another server process on this database signed session cookies with a different key/);
      expect((await withCookie(apart, cookie!, "/api/interruptions/count")).status).toBe(401);
    } finally {
      await apart.stop();
    }
    // the remedy it names: the same NEXTAUTH_SECRET (here the shared directory's key) in every process
    const secret = fs.readFileSync(path.join(dataDir, ".session_secret"), "utf8").trim();
    const keyed = await startServer({ ...ENV, NEXTAUTH_SECRET: secret }, { dataDir: ownDir, databaseUrl: database.url });
    try {
      expect((await withCookie(keyed, cookie!, "/api/interruptions/count")).status).toBe(200);
      const other = await passwordSignIn(keyed, address, "everywhere-pass-1");
      expect((await withCookie(a, other.cookie!, "/api/interruptions/count")).status).toBe(200);
      // the database holds a digest of the key, never the key
      const stored = await db.setting.findMany();
      expect(stored.some((r) => r.value.includes(secret))).toBe(false);
    } finally {
      await keyed.stop();
      fs.rmSync(ownDir, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuse a token revoked through one process in every other within 5 s", async () => {
    const [a, b] = servers;
    const token = await createToken(a, uid("revoked"), ["read"]);
    for (const s of [a, b]) expect((await request(s, "GET", "/api/interruptions/count", undefined, token.token)).status).toBe(200); // cached now
    const revoked = await request(a, "DELETE", `/api/tokens/${token.id}`);
    expect(revoked.status, revoked.text).toBeLessThan(300);
    expect((await request(a, "GET", "/api/interruptions/count", undefined, token.token)).status).toBe(401);
    await sleep(5_100); // the identity cache's bound (lib/auth/identity.ts CACHE_MS)
    expect((await request(b, "GET", "/api/interruptions/count", undefined, token.token)).status).toBe(401);
  });

  it("show an interruption ingested through one process in another's inbox poll (the 'N new' banner reads the database), though it occurred before the list was read", async () => {
    const [a, b] = servers;
    const agent = uid("Banner");
    // the inbox's list, read through one process: its first page says what had arrived
    const list = await request<InterruptionRecord[]>(b, "GET", `/api/interruptions?agent_name=${agent}&limit=50`);
    const cursor = list.headers.get("x-arrived-through");
    expect([list.body, cursor]).toEqual([[], expect.stringMatching(/^\d+$/)]);
    // a late arrival through another: its crash happened 10 minutes ago, before the list was read
    expect((await request(a, "POST", "/api/ingest/events", [{ ...crash(agent, 777), at_ns: nsAgo(600_000) }])).status).toBe(200);
    // the banner's query (components/inbox/queries.ts useArrivedSince); before, it asked for what
    // occurred after the newest row shown, and a late arrival was never announced
    const fresh = await listAgent(b, agent, `&arrived_after_ns=${cursor}`);
    expect(fresh.map((r) => r.agent_name)).toEqual([agent]);
    expect(await listAgent(b, agent, `&arrived_after_ns=${BigInt(fresh[0].occurred_at_ns) + 700_000_000_000n}`)).toEqual([]);
  });
});

describe.runIf(!postgres)("one server process on SQLite: the same leases, claims and sweep log (the multi-process test needs TEST_DATABASE_URL)", () => {
  let server: TestServer;
  let db: Db;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    console.log("[cluster] the three-process test is skipped on SQLite (several processes on one SQLite file are not supported; TEST_DATABASE_URL=postgresql://… runs it): running its single-process form");
    receiver = await startReceiver(0);
    server = await startServer(ENV);
    db = createDb(server.databaseUrl);
  }, 120_000);

  afterAll(async () => {
    await db?.$disconnect();
    await server?.stop();
    await receiver?.close();
  });

  it("alerts each interruption once and sweeps once per interval, logging each run", async () => {
    const startedNs = BigInt(Date.now()) * 1_000_000n;
    const agent = uid("Single");
    await createHook(server, agent, receiver.url);
    expect((await request(server, "POST", "/api/ingest/events", [crash(agent, 1), crash(agent, 2), crash(agent, 3)])).status).toBe(200);
    await waitFor("three alerts", async () => receiver.received.length >= 3);
    await sleep(1_500); // another tick or two: nothing more is sent
    expect(new Set(receiver.received.map((r) => r.interruptionId)).size).toBe(3);
    expect(receiver.received).toHaveLength(3);

    await waitFor("a few sweeps", async () => (await db.sweepRun.count({ where: { startedAtNs: { gte: startedNs }, status: "done" } })) >= 3);
    const runs = await expectOneSweepPerInterval(db, startedNs);
    expect(new Set(runs.map((r) => r.holder))).toEqual(new Set([holderOf(server)]));
    expect(JSON.parse(runs[0].result!)).toHaveProperty("retention");
  }, 60_000);
});
