// Alert webhooks (SPEC §7, issue 5 item 4) against the real server and a real local HTTP
// receiver: signed delivery of a critical interruption, exactly once; nothing below the
// threshold; retries after a 500; a hanging receiver slows neither ingest nor other webhooks;
// "send test"; admin-only API; timestamped signatures; outbound URLs limited to public
// addresses unless `outbound.allow_private` lists the range (checked when stored and when sent).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWebhookSecret, verifySignature } from "@/lib/alerts/rules";
import { createDb } from "@/lib/db/client";
import { createToken, expectError, failingCall, ingestCalls, ingestEvents, request, sleep } from "./support/http";
import { nsAgo } from "./support/http";
import { uid } from "./support/payloads";
import { databaseBytes, startServer, type TestServer } from "./support/server";
import { waitFor as poll, type PollOptions } from "../support/waitFor";

type Received = { path: string; headers: http.IncomingHttpHeaders; body: string };
type Hook = { id: string; name: string; url: string; enabled: boolean; signed: boolean; secret: string | null; agents: string[] };
type Delivery = { id: string; interruption_id: string | null; event: string; status: string; attempts: number; last_status_code: number | null; last_error: string | null };

/** Allows the receiver's loopback range (as the tests' receivers listen on 127.0.0.1). */
let server: TestServer;
/** The default policy: no private range allowed. */
let strict: TestServer;
let receiver: http.Server;
let base = "";
const received: Received[] = [];
const failuresLeft = new Map<string, number>();

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (path.startsWith("/hang")) return; // never answers
      const left = failuresLeft.get(path) ?? 0;
      if (left > 0) {
        failuresLeft.set(path, left - 1);
        res.writeHead(500, { "content-type": "text/plain" }).end("receiver exploded");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startServer({ SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8,::1" });
  strict = await startServer();
});

afterAll(async () => {
  await server?.stop();
  await strict?.stop();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

const at = (path: string) => received.filter((r) => r.path === path);
const header = (r: Received, name: string) => r.headers[name] as string | undefined;
/** What a receiver does: the signature of "<timestamp>.<body>", with a fresh timestamp. */
const verified = (secret: string, r: Received, nowMs?: number) =>
  verifySignature(secret, r.body, header(r, "x-sightdesk-signature"), header(r, "x-sightdesk-timestamp"), nowMs === undefined ? {} : { nowMs });

async function createHook(body: Record<string, unknown>): Promise<Hook> {
  const reply = await request<Hook>(server, "POST", "/api/webhooks", { min_severity: "high", repeat_interval_secs: 0, ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function deliveries(hookId: string): Promise<Delivery[]> {
  const reply = await request<Delivery[]>(server, "GET", `/api/webhooks/${hookId}/deliveries`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Alerts arrive within seconds: polls for up to 15 s unless told. */
const waitFor = <T>(what: string, probe: () => T | Promise<T>, options?: PollOptions) => poll(what, probe, { timeoutMs: 15_000, ...options });

/** A process_exit with oom: an agent_crash (critical). */
const crashEvent = (agent: string) => ({ kind: "process_exit", pid: 40_000 + Math.floor(Math.random() * 20_000), agent_name: agent, host: uid("host"), at_ns: nsAgo(1000), oom: true });

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

describe("alert webhooks", () => {
  it("are admin-only", async () => {
    const read = await createToken(server, uid("reader"), ["read", "triage", "ingest"]);
    expectError(await request(server, "GET", "/api/webhooks", undefined, read.token), 403, /admin/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", url: `${base}/ok` }, read.token), 403, /admin/);
    expectError(await request(server, "GET", "/api/webhooks", undefined, null), 401);
    // validation names the field
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", url: "ftp://nope" }), 400, /url/);
    expectError(await request(server, "POST", "/api/webhooks", { name: "x", url: `${base}/ok`, min_severity: "severe" }), 400, /min_severity/);
    expectError(await request(server, "GET", "/api/webhooks/missing/deliveries"), 404, /Webhook not found/);
  });

  it("POSTs a critical interruption once, signed, with the record and its link; nothing below the threshold or on re-ingest", async () => {
    const agent = uid("CrashAgent");
    const path = `/ok/${agent}`;
    const hook = await createHook({ name: "on-call", url: `${base}${path}`, agents: [agent] });
    expect(hook.signed).toBe(true);
    expect(hook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    // the secret is shown once: never in the list
    const list = await request<Hook[]>(server, "GET", "/api/webhooks");
    expect(list.text).not.toContain(hook.secret!);

    const event = crashEvent(agent);
    expect((await ingestEvents(server, [event])).interruptions).toBe(1);
    await waitFor("the alert", () => at(path).length >= 1);
    const [got] = at(path);
    expect(got.headers["content-type"]).toMatch(/application\/json/);
    expect(got.headers["x-sightdesk-event"]).toBe("interruption.created");
    const ts = Number(header(got, "x-sightdesk-timestamp"));
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(30); // unix seconds
    expect(verified(hook.secret!, got)).toBe(true);
    expect(verified("wrong", got)).toBe(false);
    // a receiver refuses the same delivery replayed ten minutes later
    expect(verified(hook.secret!, got, Date.now() + 10 * 60_000)).toBe(false);
    const payload = JSON.parse(got.body) as { event: string; url: string; interruption: Record<string, unknown> };
    expect(payload.event).toBe("interruption.created");
    expect(payload.interruption).toMatchObject({ agent_name: agent, interruption_type: "agent_crash", severity: "critical", resolved: false });
    expect(got.body).toMatch(/"occurred_at_ns":\d{19}/); // exact integer ns
    const id = payload.interruption.interruption_id as string;
    expect(payload.url).toMatch(new RegExp(`/interruptions/${id}$`));

    // below the threshold (a medium rate_limit of the same agent), and the same event again
    await ingestCalls(server, [failingCall("rate_limit", { agent_name: agent, session_id: uid("s") })]);
    await ingestEvents(server, [event]);
    await sleep(3000);
    expect(at(path)).toHaveLength(1);
    const ds = await deliveries(hook.id);
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ interruption_id: id, event: "interruption.created", status: "delivered", attempts: 1, last_status_code: 200, last_error: null });
  });

  it("does not alert a second interruption of the same fingerprint within the repeat interval", async () => {
    const agent = uid("RepeatAgent");
    const path = `/ok/${agent}`;
    const hook = await createHook({ name: "repeat", url: `${base}${path}`, agents: [agent], repeat_interval_secs: 3600 });
    await ingestEvents(server, [crashEvent(agent)]);
    await waitFor("the first alert", () => at(path).length >= 1);
    await ingestEvents(server, [crashEvent(agent)]); // another crash: same type + agent → same fingerprint
    await sleep(3000);
    expect(at(path)).toHaveLength(1);
    expect(await deliveries(hook.id)).toHaveLength(1);
  });

  it("retries a receiver that answers 500, then delivers", async () => {
    const agent = uid("FlakyAgent");
    const path = `/flaky/${agent}`;
    failuresLeft.set(path, 1);
    const hook = await createHook({ name: "flaky", url: `${base}${path}`, agents: [agent] });
    await ingestEvents(server, [crashEvent(agent)]);
    const failed = await waitFor("a failed first attempt", async () => (await deliveries(hook.id)).find((d) => d.attempts === 1 && d.status === "pending"));
    expect(failed.last_status_code).toBe(500);
    expect(failed.last_error).toBe("HTTP 500"); // the receiver's text is not stored
    const done = await waitFor("the retry", async () => (await deliveries(hook.id)).find((d) => d.status === "delivered"));
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(done.last_error).toBeNull();
    expect(at(path).length).toBe(done.attempts);
    // both attempts carry the same body, each signed with the timestamp of its attempt
    const [first, second] = at(path);
    expect(second.body).toBe(first.body);
    expect(verified(hook.secret!, first)).toBe(true);
    expect(verified(hook.secret!, second)).toBe(true);
    expect(await databaseBytes(server)).not.toContain("receiver exploded");
  });

  it("a hanging receiver slows neither ingest nor other webhooks", async () => {
    const agent = uid("HangAgent");
    const hang = await createHook({ name: "hangs", url: `${base}/hang/${agent}`, agents: [agent] });
    const ok = await createHook({ name: "healthy", url: `${base}/ok/${agent}`, agents: [agent] });
    const first = await timed(() => ingestEvents(server, [crashEvent(agent)]));
    expect(first.value.interruptions).toBe(1);
    await waitFor("the hanging request", () => at(`/hang/${agent}`).length >= 1);
    // the healthy webhook was delivered although the other one hangs
    await waitFor("the healthy delivery", () => at(`/ok/${agent}`).length >= 1, { timeoutMs: 4000 });
    // ingest while the receiver hangs
    const second = await timed(() => ingestEvents(server, [crashEvent(agent)]));
    const calls = await timed(() => ingestCalls(server, [failingCall("service_unavailable", { agent_name: agent, session_id: uid("s") })]));
    for (const t of [first, second, calls]) expect(t.ms).toBeLessThan(1500);
    const pending = await deliveries(hang.id);
    expect(pending.length).toBeGreaterThanOrEqual(1);
    expect(pending.every((d) => d.status === "pending")).toBe(true);
    await waitFor("the healthy deliveries", async () => (await deliveries(ok.id)).filter((d) => d.status === "delivered").length === 3, { timeoutMs: 8000 });
    // after the timeout the hanging attempt is recorded as failed and rescheduled
    const timedOut = await waitFor("the timeout", async () => (await deliveries(hang.id)).find((d) => d.attempts >= 1), { timeoutMs: 12_000 });
    expect(timedOut.last_error).toMatch(/timed out/);
    expect(timedOut.status).toBe("pending");
    await request(server, "POST", `/api/webhooks/${hang.id}`, { enabled: false });
  });

  it("sends a test alert on request and reports the answer", async () => {
    const path = `/ok/${uid("test")}`;
    const hook = await createHook({ name: "test me", url: `${base}${path}` });
    const reply = await request<{ ok: boolean; status_code: number; error: string | null; delivery: Delivery }>(server, "POST", `/api/webhooks/${hook.id}/test`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ ok: true, status_code: 200, error: null });
    expect(reply.body.delivery).toMatchObject({ event: "webhook.test", status: "delivered", attempts: 1, interruption_id: null });
    expect(at(path)).toHaveLength(1);
    expect(at(path)[0].headers["x-sightdesk-event"]).toBe("webhook.test");
    expect(verified(hook.secret!, at(path)[0])).toBe(true);

    const failing = `/flaky/${uid("test")}`;
    failuresLeft.set(failing, 1);
    const bad = await createHook({ name: "test fails", url: `${base}${failing}` });
    const r2 = await request<{ ok: boolean; status_code: number; error: string }>(server, "POST", `/api/webhooks/${bad.id}/test`);
    expect(r2.body).toMatchObject({ ok: false, status_code: 500, error: "HTTP 500" });
    const slack = await createHook({ name: "slack", url: `${base}/ok/slack`, kind: "slack" });
    expect(slack).toMatchObject({ signed: false, secret: null });
    expect((await request<{ ok: boolean }>(server, "POST", `/api/webhooks/${slack.id}/test`)).body.ok).toBe(true);
    const msg = JSON.parse(at("/ok/slack")[0].body) as { text: string; blocks: unknown[] };
    expect(msg.text).toContain("agent_crash");
    expect(msg.blocks.length).toBeGreaterThan(0);
    expect(at("/ok/slack")[0].headers["x-sightdesk-signature"]).toBeUndefined();
    expect(at("/ok/slack")[0].headers["x-sightdesk-timestamp"]).toBeUndefined();
    for (const h of [hook, bad, slack]) await request(server, "DELETE", `/api/webhooks/${h.id}`);
  });

  it("updates, disables and deletes webhooks", async () => {
    const agent = uid("OffAgent");
    const path = `/ok/${agent}`;
    const hook = await createHook({ name: "to disable", url: `${base}${path}`, agents: [agent] });
    const off = await request<Hook>(server, "POST", `/api/webhooks/${hook.id}`, { enabled: false, name: "disabled" });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, name: "disabled", secret: null });
    await ingestEvents(server, [crashEvent(agent)]);
    await sleep(2500);
    expect(at(path)).toHaveLength(0);
    const rotated = await request<Hook>(server, "POST", `/api/webhooks/${hook.id}`, { rotate_secret: true });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expectError(await request(server, "POST", `/api/webhooks/${hook.id}`, {}), 400);
    expect((await request(server, "DELETE", `/api/webhooks/${hook.id}`)).status).toBe(200);
    expectError(await request(server, "DELETE", `/api/webhooks/${hook.id}`), 404, /Webhook not found/);
    expect((await request<Hook[]>(server, "GET", "/api/webhooks")).body.some((h) => h.id === hook.id)).toBe(false);
  });
});

describe("outbound URLs", () => {
  const port = () => new URL(base).port;
  const refusedUrls = () => [
    `${base}/ok`,
    `http://localhost:${port()}/ok`, // a name that resolves to loopback
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/hook",
    "http://192.168.1.10:8080/",
    "http://[::1]:9/",
    "http://[::ffff:127.0.0.1]:9/", // IPv4-mapped
    "http://[fd00:ec2::254]/",
    "http://0.0.0.0:9/",
  ];

  it("a webhook URL that is or resolves to a non-public address is refused (400 naming url) without the allow list", async () => {
    for (const url of refusedUrls()) {
      const reply = await request<{ error: string }>(strict, "POST", "/api/webhooks", { name: "internal", url });
      expectError(reply, 400, /^url: /);
      expect(reply.body.error, url).toMatch(/(loopback|private|link-local|metadata|unspecified) address .*outbound\.allow_private/);
    }
    expect((await request<{ error: string }>(strict, "POST", "/api/webhooks", { name: "x", url: "http://169.254.169.254/" })).body.error).toBe(
      "url: 169.254.169.254 is a metadata address (allow its range in outbound.allow_private to use it)",
    );
    expect((await request<{ error: string }>(strict, "POST", "/api/webhooks", { name: "x", url: `http://localhost:${port()}/` })).body.error).toMatch(
      /^url: localhost resolves to 127\.0\.0\.1 is a loopback address/,
    );
    expectError(await request(strict, "POST", "/api/webhooks", { name: "x", url: "http://no-such-host.invalid/" }), 400, /^url: cannot resolve no-such-host\.invalid/);
    expect((await request<Hook[]>(strict, "GET", "/api/webhooks")).body).toEqual([]);
    // nor may an existing webhook be pointed there
    const pub = await request<Hook>(strict, "POST", "/api/webhooks", { name: "public", url: "https://93.184.216.34/hook", enabled: false });
    expect(pub.status, pub.text).toBe(201);
    expectError(await request(strict, "POST", `/api/webhooks/${pub.body.id}`, { url: "http://10.0.0.1/" }), 400, /^url: 10\.0\.0\.1 is a private address/);
    await request(strict, "DELETE", `/api/webhooks/${pub.body.id}`);
  });

  it("with outbound.allow_private listing the range, loopback URLs (and names) are accepted; other ranges stay refused", async () => {
    for (const url of [`${base}/ok/allowed`, `http://localhost:${port()}/ok/allowed`, `http://[::ffff:127.0.0.1]:${port()}/ok/allowed`]) {
      const reply = await request<Hook>(server, "POST", "/api/webhooks", { name: "allowed", url, enabled: false });
      expect(reply.status, `${url}: ${reply.text}`).toBe(201);
      await request(server, "DELETE", `/api/webhooks/${reply.body.id}`);
    }
    for (const url of ["http://169.254.169.254/", "http://10.0.0.1/hook", "http://[fd00:ec2::254]/"]) {
      expectError(await request(server, "POST", "/api/webhooks", { name: "internal", url }), 400, /^url: /);
    }
  });

  it("at send time, a stored webhook whose name resolves to a refused address is not sent to, and no reply text is stored", async () => {
    // a webhook stored before the allow list was narrowed (written to the database directly)
    const agent = uid("StrictAgent");
    const path = `/ok/${agent}`;
    const db = createDb(strict.databaseUrl);
    const id = uid("hook");
    try {
      const now = BigInt(Date.now()) * 1_000_000n - 1_000_000_000n;
      await db.webhook.create({
        data: {
          id, name: "stored earlier", url: `http://localhost:${port()}${path}`, kind: "generic", secret: newWebhookSecret(),
          minSeverity: "high", types: "[]", agents: JSON.stringify([agent]), repeatIntervalSecs: 0, enabled: true,
          createdBy: "test", createdAtNs: now, updatedAtNs: now,
        },
      });
    } finally {
      await db.$disconnect();
    }
    const refusal = /^refused: localhost resolves to 127\.0\.0\.1 is a loopback address/;
    const test = await request<{ ok: boolean; status_code: number | null; error: string; delivery: Delivery }>(strict, "POST", `/api/webhooks/${id}/test`);
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({ ok: false, status_code: null, error: expect.stringMatching(refusal) });
    expect(test.body.delivery).toMatchObject({ status: "failed", last_error: expect.stringMatching(refusal) });
    // the worker refuses it too
    await ingestEvents(strict, [crashEvent(agent)]);
    const attempt = await waitFor("the refused attempt", async () => (await request<Delivery[]>(strict, "GET", `/api/webhooks/${id}/deliveries`)).body.find((d) => d.event === "interruption.created" && d.attempts >= 1));
    expect(attempt).toMatchObject({ last_status_code: null, last_error: expect.stringMatching(refusal) });
    expect(at(path)).toEqual([]);
    await request(strict, "POST", `/api/webhooks/${id}`, { enabled: false });
  });
});
