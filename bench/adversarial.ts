// Hostile ingest requests against the production server (`next start`, SQLite): the time each
// takes at 1 MiB and at 8 MiB (linear readers take ≈ 8×), and how long `GET /api/health`
// waits while the slowest of them is being ingested — one request must never stall the server.
// Usage: npm run bench:adversarial
import { bodyOfSize, HOSTILE_REQUESTS, type HostileRequest } from "../tests/support/adversarial";
import { startServer, type TestServer } from "../tests/integration/support/server";

const MiB = 1024 * 1024;
const SIZES = [1 * MiB, 8 * MiB];

let seq = 0;
const newId = (name: string) => `adv-${name.replace(/\W+/g, "-")}-${Date.now().toString(36)}-${++seq}`;

async function post(server: TestServer, request: HostileRequest, bytes: number): Promise<{ status: number; ms: number; bytes: number }> {
  const body = bodyOfSize(request, bytes, newId(request.name));
  const started = performance.now();
  const res = await server.api(request.route, { method: "POST", body });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started, bytes: Buffer.byteLength(body) };
}

/** Health latencies, one request after the other (a busy probe), until `done` settles. */
async function healthDuring(server: TestServer, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) {
    const started = performance.now();
    await (await fetch(`${server.url}/api/health`)).arrayBuffer();
    latencies.push(performance.now() - started);
  }
  return latencies;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

async function main() {
  const server = await startServer({ SIGHTDESK_MAX_BODY_BYTES: String(9 * MiB) });
  try {
    console.log("| request | route | 1 MiB: status, ms | 8 MiB: status, ms | 8 MiB / 1 MiB |");
    console.log("|---|---|---|---|---|");
    let worst: { request: HostileRequest; ms: number } | null = null;
    for (const request of HOSTILE_REQUESTS) {
      await post(server, request, 64 * 1024); // warm the route
      const [small, large] = [await post(server, request, SIZES[0]), await post(server, request, SIZES[1])];
      if (!worst || large.ms > worst.ms) worst = { request, ms: large.ms };
      const cell = (r: typeof small) => `${r.status}, ${fmt(r.ms)}`;
      console.log(`| ${request.name} | ${request.route.replace("/api/ingest/", "")} | ${cell(small)} | ${cell(large)} | ${(large.ms / small.ms).toFixed(1)}× |`);
    }
    if (!worst) return;
    const ingest = post(server, worst.request, SIZES[1]);
    const latencies = (await healthDuring(server, ingest)).sort((a, b) => a - b);
    const taken = await ingest;
    console.log(
      `\nGET /api/health while "${worst.request.name}" (8 MiB, ${fmt(taken.ms)} ms, ${taken.status}) was ingested: ` +
        `${latencies.length} requests, p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms, max ${fmt(latencies[latencies.length - 1])} ms`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
