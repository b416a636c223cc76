// What the API benchmarks share: the production server on a prepared database, and percentiles
// of requests timed the way a client sees them (request, response, parsing the JSON).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { nextStartArgs } from "../lib/server/nextStart";

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export type Timing = { p50: number; p95: number };

/** p50/p95 in ms of `runs` calls after `warmup` untimed ones. */
export async function timeRuns(runs: number, fn: () => Promise<unknown> | unknown, warmup = 5): Promise<Timing> {
  const times: number[] = [];
  for (let i = 0; i < runs + warmup; i++) {
    const t = performance.now();
    await fn();
    if (i >= warmup) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

/** GETs `route` with the token; the parsed body (throws on a non-2xx answer). */
export async function getJson(url: string, token: string, route: string, encoding?: string): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(encoding ? { "accept-encoding": encoding } : {}) };
  const request = () => fetch(url + route, { headers });
  // A kept-alive connection left idle past the server's keep-alive timeout (while this process
  // ran SQL) may be closed just as it is reused: that first request is sent again once.
  const res = await request().catch((e: Error & { cause?: { code?: string } }) => {
    if (["UND_ERR_SOCKET", "ECONNRESET"].includes(e.cause?.code ?? "")) return request();
    throw e;
  });
  const body = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${route}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export type RunningServer = { url: string; token: string; stop: () => void };

/**
 * `next start` (the production build) on the data directory `dir` and the environment `env`
 * (DATABASE_URL …). The sweeper is told not to trim the benchmark's data: it is far over the
 * default size cap and spans more than the default retention.
 */
export async function startServer(dir: string, env: Record<string, string>): Promise<RunningServer> {
  const port = 3900 + Math.floor(Math.random() * 90);
  const log = fs.openSync(path.join(dir, "server.log"), "a"); // what it printed, should a request fail
  const server: ChildProcess = spawn(process.execPath, nextStartArgs(".", port, "127.0.0.1"), {
    env: { ...process.env, SIGHTDESK_DATA_DIR: dir, ...env, SIGHTDESK_MAX_DB_SIZE_MB: "1000000", SIGHTDESK_STORAGE__INTERRUPTIONS__RETENTION_DAYS: "3650" },
    stdio: ["ignore", log, log],
    detached: true,
  });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const stop = () => {
    if (server.pid) process.kill(-server.pid, "SIGTERM");
  };
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    if (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) {
      return { url, token: fs.readFileSync(path.join(dir, ".dashboard_token"), "utf8").trim(), stop };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error("the server did not become healthy within 60 s");
}

/** "2 cores (model), Node v20, load average 0.52 0.61 0.70" */
export function machineLine(): string {
  const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
  return `${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}, load average ${load}`;
}

export const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
