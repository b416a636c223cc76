// The alert worker driven by hand: injected clock and fetch, one tick at a time, on a fresh
// SQLite file. Covers queueing, dedupe, regression, backoff to failure and disabled webhooks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AlertWorker } from "@/lib/alerts/worker";
import { createWebhook } from "@/lib/alerts/webhooks";
import { IMPORT_ACTOR } from "@/lib/import/agentsightMap";
import { createDb, type Db } from "@/lib/db/client";
import { createTestDatabase, type TestDatabase } from "../support/database";

const SEC = 1_000_000_000n;
let db: Db;
let database: TestDatabase;
let clock = 1_800_000_000n * SEC;
const now = () => clock;
const sent: { url: string; body: string }[] = [];
let answer = 200;
const fetchStub = async (url: string, init: RequestInit) => {
  sent.push({ url, body: String(init.body) });
  return new Response("x", { status: answer });
};
let seq = 0;

beforeAll(async () => {
  database = await createTestDatabase("alerts");
  db = createDb(database.url);
}, 60_000);
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

async function interruption(fields: { agentName: string; severity?: string; type?: string; fingerprint?: string; status?: string; resolvedAtNs?: bigint; resolvedBy?: string }) {
  seq += 1;
  return db.interruption.create({
    data: {
      id: `i-${seq}`,
      agentName: fields.agentName,
      type: fields.type ?? "agent_crash",
      severity: fields.severity ?? "critical",
      occurredAtNs: clock,
      lastSeenNs: clock,
      detail: "{}",
      fingerprint: fields.fingerprint ?? `fp-${seq}`,
      status: fields.status ?? "open",
      resolvedAtNs: fields.resolvedAtNs ?? null,
      resolvedBy: fields.resolvedBy ?? null,
      createdAtNs: clock,
    },
  });
}

const hookInput = (agent: string, over: Record<string, unknown> = {}) => ({
  name: agent, url: `http://r.invalid/${agent}`, kind: "generic" as const, min_severity: "high" as const, types: [], agents: [agent], repeat_interval_secs: 600, enabled: true, ...over,
});

describe("AlertWorker", () => {
  it("queues matching interruptions once, honours the repeat interval, and flags regressions", async () => {
    const worker = new AlertWorker({ db, now, fetch: fetchStub, baseUrl: "https://desk" });
    clock += SEC;
    const hook = await createWebhook(db, hookInput("A"), "test");
    clock += SEC;
    const a = await interruption({ agentName: "A", fingerprint: "fp-a" });
    await interruption({ agentName: "A", severity: "medium", type: "rate_limit" }); // below threshold
    await interruption({ agentName: "B" }); // another agent
    await worker.tick();
    await worker.settle();
    expect(sent.map((s) => s.url)).toEqual(["http://r.invalid/A"]);
    expect(JSON.parse(sent[0].body)).toMatchObject({ event: "interruption.created", url: "https://desk/interruptions/" + a.id });

    // same fingerprint 5 minutes later: suppressed (repeat 10 min); rescans do not re-send
    clock += 300n * SEC;
    await interruption({ agentName: "A", fingerprint: "fp-a" });
    for (let k = 0; k < 3; k++) await worker.tick();
    await worker.settle();
    expect(sent).toHaveLength(1);

    // 11 minutes after the first: alerts again
    clock += 360n * SEC;
    await interruption({ agentName: "A", fingerprint: "fp-a" });
    await worker.tick();
    await worker.settle();
    expect(sent).toHaveLength(2);

    // resolved, then fires again right away: a regression alerts despite the interval
    await db.interruption.updateMany({ where: { fingerprint: "fp-a" }, data: { status: "resolved", resolvedAtNs: clock } });
    clock += SEC;
    await interruption({ agentName: "A", fingerprint: "fp-a" });
    await worker.tick();
    await worker.settle();
    expect(sent).toHaveLength(3);
    expect(JSON.parse(sent[2].body).event).toBe("interruption.regressed");
    const rows = await db.alertDelivery.findMany({ where: { webhookId: hook.id } });
    expect(rows.map((r) => r.status)).toEqual(["delivered", "delivered", "delivered"]);
  });

  it("retries with backoff and gives up after the last attempt; a new worker (restart) does not re-queue", async () => {
    sent.length = 0;
    answer = 503;
    const worker = new AlertWorker({ db, now, fetch: fetchStub });
    clock += SEC;
    const hook = await createWebhook(db, hookInput("C"), "test");
    clock += SEC;
    await interruption({ agentName: "C" });
    await worker.tick();
    await worker.settle();
    const delays = [2, 4, 8, 16, 32];
    for (const d of delays) {
      clock += BigInt(d - 1) * SEC;
      await worker.tick(); // not due yet
      await worker.settle();
      clock += SEC;
      await worker.tick();
      await worker.settle();
    }
    expect(sent.filter((s) => s.url.endsWith("/C"))).toHaveLength(6);
    const [row] = await db.alertDelivery.findMany({ where: { webhookId: hook.id } });
    expect(row).toMatchObject({ status: "failed", attempts: 6, lastStatusCode: 503 });
    clock += 3600n * SEC;
    await worker.tick();
    await worker.settle();
    expect(sent.filter((s) => s.url.endsWith("/C"))).toHaveLength(6);
    const restarted = new AlertWorker({ db, now, fetch: fetchStub });
    await restarted.tick();
    await restarted.settle();
    expect(await db.alertDelivery.count({ where: { webhookId: hook.id } })).toBe(1);
    answer = 200;
  });

  it("goes on where a burst stopped its scan: more interruptions of one stamp than a tick reads are all queued", async () => {
    const worker = new AlertWorker({ db, now, fetch: fetchStub, scanPage: 5 }); // 20 pages: 100 rows a tick
    clock += 100n * SEC;
    await createWebhook(db, hookInput("Burst", { repeat_interval_secs: 0 }), "test");
    clock += SEC;
    // one batch's interruptions, stamped together as it committed
    const burst = Array.from({ length: 130 }, (_, i) => `burst-${String(i).padStart(3, "0")}`);
    await db.interruption.createMany({
      data: burst.map((id) => ({ id, agentName: "Burst", type: "agent_crash", severity: "critical", occurredAtNs: clock, lastSeenNs: clock, detail: "{}", fingerprint: `fp-${id}`, status: "open", createdAtNs: clock })),
    });
    for (let i = 0; i < 3; i++) await worker.scan();
    // before, each scan after the first read the same 100 again from the mark: the last 30 never alerted
    expect(await db.alertDelivery.count({ where: { dedupeKey: { in: burst } } })).toBe(130);
    await db.alertDelivery.updateMany({ where: { dedupeKey: { in: burst } }, data: { status: "delivered" } }); // not for the next test to send
  });

  it("sends other webhooks' alerts while a hanging receiver has a backlog", async () => {
    const reached: string[] = [];
    // the slow receiver answers nothing until the attempt times out
    const hanging = (url: string, init: RequestInit) =>
      url.endsWith("/Slow")
        ? new Promise<Response>((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal!.reason)))
        : (reached.push(url), Promise.resolve(new Response("ok")));
    const worker = new AlertWorker({ db, now, fetch: hanging, timeoutMs: 300 });
    clock += 100n * SEC;
    await createWebhook(db, hookInput("Slow", { repeat_interval_secs: 0 }), "test");
    await createWebhook(db, hookInput("Fast", { repeat_interval_secs: 0 }), "test");
    clock += SEC;
    for (let i = 0; i < 60; i++) await interruption({ agentName: "Slow" }); // a backlog longer than a dispatch lists
    await worker.tick(); // queued; two of the slow ones in flight
    clock += SEC;
    await interruption({ agentName: "Fast" });
    await worker.tick();
    await worker.tick();
    // before, each dispatch listed the 50 oldest due deliveries — all the slow receiver's — and
    // left the fast one waiting until that backlog had drained
    expect(reached).toEqual(["http://r.invalid/Fast"]);
    await worker.settle();
    await db.alertDelivery.updateMany({ where: { status: "pending" }, data: { status: "failed" } }); // not for the next test to send
  });

  it("sends no backlog of the time no webhook wanted each interruption, once one is enabled again", async () => {
    await db.webhook.updateMany({ data: { enabled: false } });
    sent.length = 0;
    const worker = new AlertWorker({ db, now, fetch: fetchStub });
    clock += SEC;
    const hook = await createWebhook(db, hookInput("E"), "test");
    clock += SEC;
    await interruption({ agentName: "E" });
    expect(await worker.scan()).toBe(1);
    await db.webhook.update({ where: { id: hook.id }, data: { enabled: false } });
    clock += 60n * SEC;
    const meanwhile = await interruption({ agentName: "E" });
    clock += 60n * SEC;
    expect(await worker.scan()).toBe(0);
    await db.webhook.update({ where: { id: hook.id }, data: { enabled: true } });
    clock += SEC;
    const after = await interruption({ agentName: "E" });
    expect(await worker.scan()).toBe(1);
    const queued = await db.alertDelivery.findMany({ where: { webhookId: hook.id }, select: { dedupeKey: true } });
    expect(queued.map((d) => d.dedupeKey)).not.toContain(meanwhile.id);
    expect(queued.map((d) => d.dedupeKey)).toContain(after.id);
    // the same across a restart (the mark is stored)
    await db.webhook.update({ where: { id: hook.id }, data: { enabled: false } });
    clock += 60n * SEC;
    const whileOff = await interruption({ agentName: "E" });
    clock += 60n * SEC;
    await new AlertWorker({ db, now, fetch: fetchStub }).scan();
    await db.webhook.update({ where: { id: hook.id }, data: { enabled: true } });
    clock += SEC;
    await new AlertWorker({ db, now, fetch: fetchStub }).scan();
    expect((await db.alertDelivery.findMany({ where: { webhookId: hook.id, dedupeKey: whileOff.id } })).length).toBe(0);
    await db.alertDelivery.updateMany({ where: { status: "pending" }, data: { status: "failed" } }); // not for the next test to send
  });

  it("alerts on no history an import brings in resolved; one resolved by a person since it arrived still alerts", async () => {
    await db.webhook.updateMany({ data: { enabled: false } });
    const worker = new AlertWorker({ db, now, fetch: fetchStub });
    clock += SEC;
    const hook = await createWebhook(db, hookInput("F"), "test");
    clock += SEC;
    const imported = await interruption({ agentName: "F", status: "resolved", resolvedAtNs: clock, resolvedBy: IMPORT_ACTOR });
    const quick = await interruption({ agentName: "F", status: "resolved", resolvedAtNs: clock, resolvedBy: "ana@example.com" });
    const open = await interruption({ agentName: "F" });
    expect(await worker.scan()).toBe(2);
    const queued = (await db.alertDelivery.findMany({ where: { webhookId: hook.id }, select: { dedupeKey: true } })).map((d) => d.dedupeKey).sort();
    expect(queued).toEqual([quick.id, open.id].sort());
    expect(queued).not.toContain(imported.id);
    await db.alertDelivery.updateMany({ where: { status: "pending" }, data: { status: "failed" } }); // not for the next test to send
  });

  it("fails pending deliveries of a disabled webhook instead of sending them", async () => {
    sent.length = 0;
    const worker = new AlertWorker({ db, now, fetch: fetchStub });
    clock += SEC;
    const hook = await createWebhook(db, hookInput("D"), "test");
    clock += SEC;
    await interruption({ agentName: "D" });
    await worker.scan();
    await db.webhook.update({ where: { id: hook.id }, data: { enabled: false } });
    await worker.dispatch();
    await worker.settle();
    expect(sent).toHaveLength(0);
    expect((await db.alertDelivery.findFirst({ where: { webhookId: hook.id } }))?.status).toBe("failed");
  });
});
