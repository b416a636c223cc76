// Recording-proxy benchmark (SPEC §2.6): time to first byte and total time, direct to a fake
// provider vs through `sightdesk proxy`, for a JSON answer and a streamed answer of 500 SSE
// events, with 1 and with 16 concurrent clients; then the proxy's throughput in exchanges/s,
// counted where they are delivered (a stub of POST /api/ingest/http that counts and discards, so
// the number is the proxy's, not the database's). The proxy is the real `sightdesk proxy`
// command in its own process, as an agent host runs it; the clients, the fake provider and the
// ingest stub share this process. Everything is on 127.0.0.1.
// Latency is measured twice with 16 clients: back to back (each client sends its next request
// the moment the last one ends, which saturates the proxy, so the added time is mostly queueing)
// and paced (the clients together send --rate requests/s, like agents that wait for their model).
// Usage: npm run bench:proxy [-- --requests 2000 --sse-requests 300 --clients 16 --seconds 5 --rate 400]
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = flag("requests", 2000);
const SSE_REQUESTS = flag("sse-requests", 300);
const CLIENTS = flag("clients", 16);
const SECONDS = flag("seconds", 5);
const SSE_EVENTS = 500;
/** Total request rate of the paced runs: agents wait for their model, they do not fire back to back. */
const RATE = flag("rate", 400);

const completion = JSON.stringify({
  id: "chatcmpl-bench", object: "chat.completion", created: 1767268800, model: "bench",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hello from the bench provider. ".repeat(8) } }],
  usage: { prompt_tokens: 40, completion_tokens: 60, total_tokens: 100 },
});
const sseEvents = [
  ...Array.from({ length: SSE_EVENTS - 1 }, (_, i) =>
    `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1767268800, model: "bench", choices: [{ index: 0, delta: { content: `tok${i} ` }, finish_reason: i === SSE_EVENTS - 2 ? "stop" : null }] })}\n\n`),
  "data: [DONE]\n\n",
];
const requestBody = JSON.stringify({ model: "bench", messages: [{ role: "system", content: "You are a benchmark." }, { role: "user", content: "Say hello. ".repeat(20) }] });
const sseRequestBody = JSON.stringify({ ...JSON.parse(requestBody), stream: true });

function occurrences(haystack: Buffer, needle: string): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`)));
}

async function main() {
  const provider = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (Buffer.concat(chunks).includes('"stream":true')) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const e of sseEvents) res.write(e);
        res.end();
      } else {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(completion) });
        res.end(completion);
      }
    });
  });
  const providerUrl = await listen(provider);

  let delivered = 0;
  let deliveredMarked = 0; // exchanges of the throughput run (agent "bench-throughput")
  const sink = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      // counted without parsing: the stub shares this process with the clients and the provider
      const body = Buffer.concat(chunks);
      delivered += occurrences(body, '"call_id":"px-');
      deliveredMarked += occurrences(body, '"agent_name":"bench-throughput"');
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"received":0}');
    });
  });
  const sinkUrl = await listen(sink);

  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-spool-"));
  const port = await new Promise<number>((r) => {
    const probe = http.createServer().listen(0, "127.0.0.1", () => {
      const p = (probe.address() as net.AddressInfo).port;
      probe.close(() => r(p));
    });
  });
  const child = spawn(process.execPath, [...(process.env.BENCH_PROXY_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROXY_PROF}`] : []), path.join(__dirname, "../bin/sightdesk.mjs"), "proxy", "--url", sinkUrl, "--token", "bench", "--listen", `127.0.0.1:${port}`, "--upstream", `openai=${providerUrl}`, "--agent-name", "bench", "--spool", spoolDir], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  while (!log.includes("Recording proxy on")) {
    if (child.exitCode !== null) throw new Error(`the proxy did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const proxy = { url: `http://127.0.0.1:${port}` };

  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  /** One request: ms to the first body byte and to the end. */
  const one = (url: string, body: string, agentName = "bench"): Promise<{ ttfb: number; total: number }> =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      let ttfb = -1;
      const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", authorization: "Bearer sk-bench-0000000000000000", "content-length": Buffer.byteLength(body), "x-sightdesk-agent": agentName } }, (res) => {
        res.on("data", () => {
          if (ttfb < 0) ttfb = performance.now() - t0;
        });
        res.on("end", () => resolve({ ttfb, total: performance.now() - t0 }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });

  /** `n` requests from `clients` clients, back to back, or each client starting one every `clients / rate` s. */
  async function run(url: string, body: string, n: number, clients = CLIENTS, rate?: number) {
    const ttfb: number[] = [];
    const total: number[] = [];
    const interval = rate ? (clients * 1000) / rate : 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async (_, i) => {
        if (interval) await new Promise((r) => setTimeout(r, (interval * i) / clients)); // staggered
        while (next < n) {
          next++;
          const started = performance.now();
          const r = await one(url, body);
          ttfb.push(r.ttfb);
          total.push(r.total);
          const rest = interval - (performance.now() - started);
          if (rest > 0) await new Promise((r) => setTimeout(r, rest));
        }
      }),
    );
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    return { ttfb50: q(ttfb, 0.5), ttfb99: q(ttfb, 0.99), total50: q(total, 0.5), total99: q(total, 0.99) };
  }

  const direct = `${providerUrl}/v1/chat/completions`;
  const proxied = `${proxy.url}/openai/v1/chat/completions`;
  // warm up both paths (connections, JIT)
  await run(direct, requestBody, 200);
  await run(proxied, requestBody, 200);
  await run(proxied, sseRequestBody, 20);

  const rows: string[] = [];
  const f = (x: number) => x.toFixed(3);
  for (const [clients, rate] of [[1, undefined], [CLIENTS, undefined], [CLIENTS, RATE]] as const) {
    const who = rate ? `${clients}, ${rate}/s` : clients === 1 ? "1" : `${clients}, back to back`;
    for (const [label, body, n] of [["JSON", requestBody, REQUESTS], [`SSE, ${SSE_EVENTS} events`, sseRequestBody, SSE_REQUESTS]] as const) {
      const d = await run(direct, body, n, clients, rate);
      const p = await run(proxied, body, n, clients, rate);
      rows.push(`| ${label} | ${who} | direct | ${n} | ${f(d.ttfb50)} | ${f(d.ttfb99)} | ${f(d.total50)} | ${f(d.total99)} |`);
      rows.push(`| ${label} | ${who} | proxy | ${n} | ${f(p.ttfb50)} | ${f(p.ttfb99)} | ${f(p.total50)} | ${f(p.total99)} |`);
      rows.push(`| ${label} | ${who} | **added** | | **${f(p.ttfb50 - d.ttfb50)}** | **${f(p.ttfb99 - d.ttfb99)}** | ${f(p.total50 - d.total50)} | ${f(p.total99 - d.total99)} |`);
    }
  }

  // throughput: JSON exchanges through the proxy for SECONDS, counted when delivered
  let done = 0;
  const t0 = performance.now();
  const until = t0 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        await one(proxied, requestBody, "bench-throughput");
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const wait = performance.now() + 10_000;
  while (deliveredMarked < done && performance.now() < wait) await new Promise((r) => setTimeout(r, 100));
  const recorded = deliveredMarked;

  console.log(`\nRecording proxy, ${CLIENTS} concurrent clients, Node ${process.version}, ${os.cpus().length} cores (times in ms)\n`);
  console.log("| answer | clients | path | requests | TTFB p50 | TTFB p99 | total p50 | total p99 |");
  console.log("|---|---:|---|---:|---:|---:|---:|---:|");
  for (const r of rows) console.log(r);
  console.log(`\nThroughput (JSON, ${CLIENTS} clients, ${SECONDS} s): ${Math.round(done / elapsed)} exchanges/s proxied, ${recorded} of ${done} recorded and delivered to the ingest stub (${Math.round(recorded / elapsed)} exchanges/s recorded); ${delivered} exchanges delivered in all`);

  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  agent.destroy();
  provider.close();
  sink.close();
  fs.rmSync(spoolDir, { recursive: true, force: true });
}

void main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
