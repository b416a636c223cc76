// The proxy's sender against a server that refuses what it is sent: a refused batch is split to
// find the bad exchanges, within a bounded number of requests.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { WireExchange } from "@/lib/proxy/exchange";
import { ExchangeSender } from "@/lib/proxy/sender";

let server: http.Server;
let url = "";
let posts = 0;
/** Exchanges whose call_id starts with "bad" make their batch a 400, as the ingest API does. */
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      posts++;
      const bad = body.includes('"call_id":"bad');
      res.writeHead(bad ? 400 : 200, { "content-type": "application/json" }).end(bad ? '{"error":"[3].call_id: invalid"}' : '{"received":1}');
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const exchange = (id: string): WireExchange => ({ call_id: id, start_ns: "1", end_ns: "2", request: { method: "POST", url: "https://api.example/v1", headers: {}, body: "{}" }, response: null });

async function send(ids: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-sender-"));
  const logs: string[] = [];
  const sender = new ExchangeSender({ url, token: "t", spoolDir: dir, spoolMaxBytes: 1 << 24, intervalMs: 60_000, batchSize: ids.length, log: (l) => logs.push(l) });
  posts = 0;
  for (const id of ids) sender.add(exchange(id));
  await sender.flush();
  await sender.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  return { stats: sender.snapshot(), posts, logs };
}

describe("a server that refuses the token", () => {
  it("is told once, plainly, and asked again less and less often, not every second", async () => {
    let asked = 0;
    const refusing = http.createServer((req, res) => {
      req.resume().on("end", () => {
        asked++;
        res.writeHead(401, { "content-type": "application/json" }).end('{"error":"Invalid or revoked token"}');
      });
    });
    await new Promise<void>((r) => refusing.listen(0, "127.0.0.1", r));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-refused-"));
    const logs: string[] = [];
    const sender = new ExchangeSender({ url: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`, token: "revoked", spoolDir: dir, spoolMaxBytes: 1 << 24, intervalMs: 50, log: (l) => logs.push(l) });
    try {
      sender.start();
      for (let i = 0; i < 5; i++) sender.add(exchange(`r-${i}`));
      await new Promise((r) => setTimeout(r, 2000));
      // before: a POST and a log line every 50 ms, forty of each; now waits of 100, 200, 400, 800 ms…
      expect(asked).toBeGreaterThanOrEqual(2);
      expect(asked).toBeLessThanOrEqual(8);
      expect(logs).toEqual([expect.stringMatching(/refuses the token \(HTTP 401\): give one with the ingest scope/)]);
      expect(sender.snapshot()).toMatchObject({ sent: 0, dropped: 0 });
    } finally {
      await sender.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      await new Promise<void>((r) => refusing.close(() => r()));
    }
  });
});

describe("an outage", () => {
  it("spools a batch per attempt at a cost that does not grow with the spool, and delivers all of it in order after", async () => {
    const received: string[] = [];
    let down = true;
    const flaky = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        if (!down) for (const x of JSON.parse(body) as WireExchange[]) received.push(x.call_id);
        res.writeHead(down ? 503 : 200, { "content-type": "application/json" }).end(down ? '{"error":"down"}' : "{}");
      });
    });
    await new Promise<void>((r) => flaky.listen(0, "127.0.0.1", r));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-outage-"));
    const readdir = vi.spyOn(fs, "readdirSync");
    const stat = vi.spyOn(fs, "statSync");
    try {
      const sender = new ExchangeSender({ url: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`, token: "t", spoolDir: dir, spoolMaxBytes: 1 << 24, intervalMs: 60_000 });
      const ticks = 300; // one attempt a second: five minutes of outage
      for (let i = 0; i < ticks; i++) {
        sender.add(exchange(`x-${String(i).padStart(4, "0")}`));
        await new Promise((r) => setImmediate(r));
        await sender.flush();
      }
      expect(sender.snapshot()).toMatchObject({ sent: 0, spoolFiles: ticks });
      // before, every attempt listed the directory twice and stat-ed every file: ~45,000 stats here
      expect(readdir.mock.calls.length).toBeLessThanOrEqual(1);
      expect(stat.mock.calls.length).toBeLessThanOrEqual(1);
      down = false;
      await sender.flush();
      await sender.stop();
      expect(received).toEqual(Array.from({ length: ticks }, (_, i) => `x-${String(i).padStart(4, "0")}`));
      expect(sender.snapshot()).toMatchObject({ sent: ticks, spoolFiles: 0 });
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      readdir.mockRestore();
      stat.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
      await new Promise<void>((r) => flaky.close(() => r()));
    }
  });

  it("a spool left by an earlier run is read at start, sent first, and bounded by size", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-left-"));
    try {
      const line = (id: string) => JSON.stringify(exchange(id)) + "\n";
      fs.writeFileSync(path.join(dir, "000000000000001-000000-1.jsonl"), line("old-1"));
      fs.writeFileSync(path.join(dir, "000000000000002-000000-1.jsonl"), line("old-2"));
      const logs: string[] = [];
      // room for about one file: the older one is dropped when a new one is written
      const sender = new ExchangeSender({ url: "http://127.0.0.1:1", token: "t", spoolDir: dir, spoolMaxBytes: line("old-1").length + 10, intervalMs: 60_000, log: (l) => logs.push(l) });
      expect(sender.snapshot().spoolFiles).toBe(2);
      sender.add(exchange("new-1"));
      await new Promise((r) => setImmediate(r));
      await sender.flush();
      expect(fs.readdirSync(dir)).toHaveLength(1);
      expect(sender.snapshot()).toMatchObject({ spoolFiles: 1, dropped: 2 });
      expect(logs.some((l) => /dropped the 2 oldest exchanges/.test(l))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a batch the server refuses", () => {
  it("is split until the bad exchange is alone: the others are stored", async () => {
    const ids = Array.from({ length: 64 }, (_, i) => (i === 41 ? "bad-41" : `ok-${i}`));
    const r = await send(ids);
    expect(r.stats).toMatchObject({ sent: 63, dropped: 1 });
    expect(r.posts).toBeLessThanOrEqual(2 * Math.log2(64) + 1);
    expect(r.logs).toEqual([expect.stringMatching(/refused an exchange \(HTTP 400/)]);
  });
  it("costs a bounded number of requests when the server refuses everything", async () => {
    const r = await send(Array.from({ length: 1000 }, (_, i) => `bad-${i}`));
    expect(r.stats).toMatchObject({ sent: 0, dropped: 1000 });
    expect(r.posts).toBeLessThanOrEqual(4 * 10 + 4); // not 1,999
  });
});
