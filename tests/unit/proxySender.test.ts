// The proxy's sender against a server that refuses what it is sent: a refused batch is split to
// find the bad exchanges, within a bounded number of requests.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
