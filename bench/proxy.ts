// Recording-proxy benchmark (SPEC §2.6): time to first byte and total time, direct to a fake
// provider vs through `sightdesk proxy`, for a JSON answer and a streamed answer of 500 SSE
// events, with 1 and with 16 concurrent clients; then the proxy's throughput in exchanges/s.
// The proxy is the real `sightdesk proxy` command in its own process, as an agent host runs it;
// the clients and the fake provider share this process. Everything is on 127.0.0.1.
// Latency is measured twice with 16 clients: back to back (each client sends its next request
// the moment the last one ends, which saturates the proxy, so the added time is mostly queueing)
// and paced (the clients together send --rate requests/s, like agents that wait for their model).
// Each row also gives the CPU the proxy process and this process used during the proxied run
// (% of one core), so a row says whether the proxy, or the load generator, was the bottleneck.
//
// Where the recorded exchanges go:
// - default: a stub of POST /api/ingest/http in its own process that counts and discards, so
//   the throughput is the proxy's, not the database's;
// - --server: the real server (`next start` from the last `npm run build`, on a fresh SQLite
//   database); the throughput run then reports exchanges/s proxied, exchanges/s that landed in
//   the database (rows counted once the proxy's queue and spool have drained), and the CPU of
//   the proxy and of the server, which tells which of the two was the bottleneck.
// --bare puts a bare Node pass-through (http server piped to http client, nothing recorded) in
// place of the proxy: the floor that Node's HTTP handling sets on this machine.
//
// Usage: npm run bench:proxy [-- --requests 2000 --sse-requests 300 --clients 16 --seconds 5
//   --rate 400 --only json-1,sse-1,json-b2b,sse-b2b,json-paced,sse-paced,throughput --server --bare]
import { fork, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { PROXY_HEAP_FLAGS } from "../bin/proxyHeap.mjs";

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
const REAL_SERVER = process.argv.includes("--server");
/** A bare pass-through (no recording, no caller lookup) in place of `sightdesk proxy`: the floor Node's HTTP costs set. */
const BARE = process.argv.includes("--bare");
const ONLY = process.argv.includes("--only") ? new Set(process.argv[process.argv.indexOf("--only") + 1].split(",")) : null;
const wanted = (name: string) => !ONLY || ONLY.has(name);

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

function listen(server: http.Server): Promise<string> {
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`)));
}

const TICK = 100; // clock ticks per second of /proc/<pid>/stat (CLK_TCK on Linux)

/** CPU seconds (user + system) used so far by a process, by every process of a process group, or by a process's main thread. */
function cpuSeconds(pid: number, group = false, mainThread = false): number {
  const read = (p: string) => {
    try {
      const stat = fs.readFileSync(mainThread ? `/proc/${p}/task/${p}/stat` : `/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // f[0] is field 3 (state)
      return { pgrp: Number(f[2]), ticks: Number(f[11]) + Number(f[12]) };
    } catch {
      return null;
    }
  };
  if (!group) return (read(String(pid))?.ticks ?? 0) / TICK;
  let ticks = 0;
  for (const p of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    const s = read(p);
    if (s?.pgrp === pid) ticks += s.ticks;
  }
  return ticks / TICK;
}

/** % of one core used by each watched process between start() and stop(). */
function cpuMeter(watch: Record<string, () => number>) {
  const t0 = performance.now();
  const before = Object.fromEntries(Object.entries(watch).map(([k, f]) => [k, f()]));
  return () => {
    const s = (performance.now() - t0) / 1000;
    return Object.fromEntries(Object.entries(watch).map(([k, f]) => [k, Math.round((100 * (f() - before[k])) / s)]));
  };
}

const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Where the proxy sends its exchanges: the counting stub (its own process) or the real server. */
type Ingest = { url: string; token: string; cpu: () => number; recorded: () => Promise<number>; stop: () => Promise<void> };

/** The stub runs in its own process so that counting 50 MB/s of JSON does not slow the clients. */
async function startStub(): Promise<Ingest> {
  const child: ChildProcess = fork(__filename, ["--ingest-stub"], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const url = await new Promise<string>((r) => child.once("message", (m) => r(String(m))));
  return {
    url, token: "bench",
    cpu: () => cpuSeconds(child.pid!),
    recorded: () => new Promise((r) => { child.once("message", (m) => r(Number(m))); child.send("count"); }),
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** The stub's process: counts the exchanges of the throughput run (agent "bench-throughput") without parsing. */
function runStub(): void {
  const marker = Buffer.from('"agent_name":"bench-throughput"');
  let marked = 0;
  const sink = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      for (let at = body.indexOf(marker); at >= 0; at = body.indexOf(marker, at + marker.length)) marked++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"received":0}');
    });
  });
  process.on("message", () => process.send!(marked));
  void listen(sink).then((url) => process.send!(url));
}

/** The --bare reference: Node's http server and client piped together, nothing recorded. */
function runBareProxy(): void {
  const [port, upstream] = process.argv.slice(process.argv.indexOf("--bare-proxy") + 1);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const server = http.createServer({ noDelay: true }, (req, res) => {
    const up = http.request(`${upstream}${req.url!.replace(/^\/openai/, "")}`, { method: req.method, headers: req.headers, agent }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  server.listen(Number(port), "127.0.0.1", () => process.stderr.write("Recording proxy on (bare)\n"));
}

/** The real server on a fresh SQLite database (needs `npm run build`). */
async function startRealServer(): Promise<Ingest> {
  const { startServer } = await import("../tests/integration/support/server");
  const Database = (await import("better-sqlite3")).default;
  const server = await startServer({}, { databaseInDataDir: true });
  const pgid = serverGroup(server.url);
  return {
    url: server.url, token: server.token,
    cpu: () => cpuSeconds(pgid, true),
    recorded: async () => {
      const db = new Database(server.dbFile!, { readonly: true, fileMustExist: true });
      try {
        return (db.prepare(`SELECT count(*) AS n FROM "Call" WHERE "agentName" = 'bench-throughput'`).get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
    stop: () => server.stop(),
  };
}

/** The process group of the server listening on `url` (its `next start` and any process it starts). */
function serverGroup(url: string): number {
  const port = Number(new URL(url).port);
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inode = fs.readFileSync("/proc/net/tcp", "utf8").split("\n").map((l) => l.trim().split(/\s+/)).find((f) => f[1]?.endsWith(`:${hex}`) && f[3] === "0A")?.[9];
  if (!inode) throw new Error("cannot find the server's listening socket");
  for (const p of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      for (const fd of fs.readdirSync(`/proc/${p}/fd`)) if (fs.readlinkSync(`/proc/${p}/fd/${fd}`) === `socket:[${inode}]`) {
        const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      }
    } catch {
      /* gone, or not ours */
    }
  }
  throw new Error("cannot find the server's process");
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
  const ingest = REAL_SERVER ? await startRealServer() : await startStub();

  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-bench-spool-"));
  const port = await (await import("../tests/integration/support/server")).freePort();
  // the heap settings bin/sightdesk.mjs starts the proxy with, given here so that the process
  // measured is the proxy itself (not the launcher that would re-start it with them)
  const profile = process.env.BENCH_PROXY_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROXY_PROF}`] : [];
  const child = BARE
    ? fork(__filename, ["--bare-proxy", String(port), providerUrl], { execArgv: [...process.execArgv, ...profile], stdio: ["ignore", "ignore", "pipe", "ipc"] })
    : spawn(process.execPath, [...PROXY_HEAP_FLAGS, ...profile, path.join(__dirname, "../bin/sightdesk.mjs"), "proxy", "--url", ingest.url, "--token", ingest.token, "--listen", `127.0.0.1:${port}`, "--upstream", `openai=${providerUrl}`, "--agent-name", "bench", "--spool", spoolDir], { stdio: ["ignore", "ignore", "pipe"] });
  process.on("exit", () => child.kill()); // also when the bench fails
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  while (!log.includes("Recording proxy on")) {
    if (child.exitCode !== null) throw new Error(`the proxy did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const proxy = { url: `http://127.0.0.1:${port}` };
  const proxyCpu = () => cpuSeconds(child.pid!);
  /** the thread that forwards (the sender thread's work is not on the agents' path) */
  const proxyMainCpu = () => cpuSeconds(child.pid!, false, true);

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
    const cpu = cpuMeter({ proxy: proxyCpu, bench: selfCpu });
    const proxyBefore = proxyCpu();
    const mainBefore = proxyMainCpu();
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
    const used: Record<string, number> = { ...cpu(), proxyMsPerRequest: ((proxyCpu() - proxyBefore) * 1000) / n, mainMsPerRequest: ((proxyMainCpu() - mainBefore) * 1000) / n };
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    return { ttfb50: q(ttfb, 0.5), ttfb99: q(ttfb, 0.99), total50: q(total, 0.5), total99: q(total, 0.99), cpu: used };
  }

  const direct = `${providerUrl}/v1/chat/completions`;
  const proxied = `${proxy.url}/openai/v1/chat/completions`;
  // warm up both paths (connections, JIT)
  await run(direct, requestBody, 200);
  await run(proxied, requestBody, 200);
  await run(proxied, sseRequestBody, 20);

  const rows: string[] = [];
  const f = (x: number) => x.toFixed(3);
  const shapes = [["1", 1, undefined], ["b2b", CLIENTS, undefined], ["paced", CLIENTS, RATE]] as const;
  for (const [tag, clients, rate] of shapes) {
    const who = rate ? `${clients}, ${rate}/s` : clients === 1 ? "1" : `${clients}, back to back`;
    for (const [kind, label, body, n] of [["json", "JSON", requestBody, REQUESTS], ["sse", `SSE, ${SSE_EVENTS} events`, sseRequestBody, SSE_REQUESTS]] as const) {
      if (!wanted(`${kind}-${tag}`)) continue;
      const d = await run(direct, body, n, clients, rate);
      const p = await run(proxied, body, n, clients, rate);
      rows.push(`| ${label} | ${who} | direct | ${n} | ${f(d.ttfb50)} | ${f(d.ttfb99)} | ${f(d.total50)} | ${f(d.total99)} | | ${d.cpu.bench} |`);
      rows.push(`| ${label} | ${who} | proxy | ${n} | ${f(p.ttfb50)} | ${f(p.ttfb99)} | ${f(p.total50)} | ${f(p.total99)} | ${p.cpu.proxy} (${p.cpu.proxyMsPerRequest.toFixed(2)} ms/req, main thread ${p.cpu.mainMsPerRequest.toFixed(2)}) | ${p.cpu.bench} |`);
      rows.push(`| ${label} | ${who} | **added** | | **${f(p.ttfb50 - d.ttfb50)}** | **${f(p.ttfb99 - d.ttfb99)}** | ${f(p.total50 - d.total50)} | ${f(p.total99 - d.total99)} | | |`);
    }
  }

  console.log(`\nRecording proxy, ${CLIENTS} concurrent clients, Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} (times in ms; CPU in % of one core)\n`);
  if (rows.length) {
    console.log("| answer | clients | path | requests | TTFB p50 | TTFB p99 | total p50 | total p99 | proxy CPU | bench CPU |");
    console.log("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const r of rows) console.log(r);
  }

  if (wanted("throughput") && !BARE) {
    // JSON exchanges through the proxy for SECONDS, then counted where they landed
    const already = await ingest.recorded();
    const cpuAtStart = { proxy: proxyCpu(), ingest: ingest.cpu() };
    let done = 0;
    const cpu = cpuMeter({ proxy: proxyCpu, [REAL_SERVER ? "server" : "stub"]: ingest.cpu, bench: selfCpu });
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
    const during = cpu();
    const drain = cpuMeter({ proxy: proxyCpu, [REAL_SERVER ? "server" : "stub"]: ingest.cpu });
    // wait until every exchange has landed (the proxy's queue and spool drained), at most 120 s
    let landed = (await ingest.recorded()) - already;
    let landedAt = performance.now();
    const deadline = performance.now() + 120_000;
    while (landed < done && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      const now = (await ingest.recorded()) - already;
      if (now !== landed) landedAt = performance.now();
      landed = now;
    }
    const afterRun = drain();
    const landedSeconds = (landedAt - t0) / 1000;
    const where = REAL_SERVER ? "the real server (next start, SQLite)" : "the ingest stub";
    const cpuText = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${v} %`).join(", ");
    console.log(`\nThroughput (JSON, ${CLIENTS} clients, ${SECONDS} s, into ${where}): ${Math.round(done / elapsed)} exchanges/s proxied; ${landed} of ${done} landed in ${landedSeconds.toFixed(1)} s = ${Math.round(landed / landedSeconds)} exchanges/s recorded`);
    console.log(`CPU while proxying: ${cpuText(during)}; while draining afterwards (${((performance.now() - t0) / 1000 - elapsed).toFixed(1)} s): ${cpuText(afterRun)}`);
    // CPU per exchange, from the first request until the last exchange landed
    const perExchange = (seconds: number) => `${((seconds * 1000) / Math.max(1, landed)).toFixed(2)} ms`;
    const proxyMs = perExchange(proxyCpu() - cpuAtStart.proxy);
    const ingestMs = perExchange(ingest.cpu() - cpuAtStart.ingest);
    console.log(`CPU per exchange, until the last one landed: proxy ${proxyMs} (forwarding and recording), ${REAL_SERVER ? "server" : "stub"} ${ingestMs}`);
    if (REAL_SERVER) {
      const serverBound = landed / landedSeconds < 0.9 * (done / elapsed);
      console.log(serverBound
        ? `Bottleneck: the server (it stored ${Math.round(landed / landedSeconds)}/s while the proxy passed ${Math.round(done / elapsed)}/s; the proxy queued and spooled the rest, the agents never waited)`
        : `Bottleneck: the proxy (the server stored exchanges as fast as the proxy passed them)`);
    }
  }

  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  agent.destroy();
  provider.close();
  await ingest.stop();
  fs.rmSync(spoolDir, { recursive: true, force: true });
}

// the helper processes end with the bench, also when it fails
if (process.argv.includes("--ingest-stub") || process.argv.includes("--bare-proxy")) process.on("disconnect", () => process.exit(0));
if (process.argv.includes("--ingest-stub")) runStub();
else if (process.argv.includes("--bare-proxy")) runBareProxy();
else
  void main().then(() => process.exit(0), (e) => {
    console.error(e);
    process.exit(1);
  });
