// `npm run start:cluster -- --processes 3 [--port 3000]`: several production server processes
// on one PostgreSQL database, on consecutive ports, to try a multi-process deployment on one
// machine (in production, a load balancer spreads requests over them; README "Several server
// processes"). It checks the configuration and migrates once, starts the first process and
// waits until it answers (it writes the token file and session key the others read from the
// shared data directory), then starts the others. Ctrl-C stops them all; a process that exits
// on its own is reported and the others keep serving.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { config } from "../lib/config/load";
import { migrate } from "../lib/db/migrate";
import { secureDataDir } from "../lib/db/privateFiles";
import { databaseUrl, providerOf, redactedUrl } from "../lib/db/url";
import { nextStartArgs } from "../lib/server/nextStart";

const USAGE = "usage: npm run start:cluster -- [--processes N] [--port FIRST_PORT] [--host HOST]";
const ROOT = path.resolve(__dirname, "..");

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { processes: { type: "string", default: "3" }, port: { type: "string", default: process.env.PORT || "3000" }, host: { type: "string", default: process.env.HOSTNAME || "0.0.0.0" } },
    }));
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  const processes = Number(values.processes);
  const port = Number(values.port);
  if (!Number.isInteger(processes) || processes < 1 || processes > 32) fail(`--processes: expected 1 to 32, got ${values.processes}\n${USAGE}`, 2);
  if (!Number.isInteger(port) || port < 1 || port + processes - 1 > 65535) fail(`--port: expected a port, got ${values.port}\n${USAGE}`, 2);
  return { processes, port, host: values.host };
}

async function healthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server on ${url} exited before it answered`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server on ${url} did not answer /api/health within 2 minutes`);
}

/** Prefixes each line a child prints with its port, so the processes' logs stay apart. */
function relay(stream: NodeJS.ReadableStream | null, out: NodeJS.WriteStream, label: string): void {
  let rest = "";
  stream?.on("data", (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) out.write(`${label} ${line}\n`);
  });
}

async function main(): Promise<void> {
  const { processes, port, host } = options();
  const url = databaseUrl();
  if (providerOf(url) !== "postgresql") {
    fail("start:cluster needs PostgreSQL: set DATABASE_URL=postgresql://… (several server processes on one SQLite file are not supported; `scripts/postgres-cluster.sh start` gives a local PostgreSQL)", 2);
  }
  if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) fail("No production build: run `npm run build` first.");
  config(); // an invalid configuration stops here, before any process starts
  secureDataDir();
  const { applied } = await migrate(url);
  console.log(`Database ready (${applied.length ? `applied ${applied.length} migrations` : "up to date"}): ${redactedUrl(url)}`);

  const children: ChildProcess[] = [];
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(-child.pid, signal); // its whole process group, whatever it started
        } catch {
          /* gone meanwhile */
        }
      }
    }
  };
  process.on("SIGINT", () => stopAll("SIGTERM"));
  process.on("SIGTERM", () => stopAll("SIGTERM"));

  const local = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  for (let i = 0; i < processes && !stopping; i++) {
    const p = port + i;
    const label = `[${i + 1}:${p}]`;
    const child = spawn(process.execPath, nextStartArgs(ROOT, p, host), {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "production" },
      detached: true, // its own process group, stopped as a whole
      stdio: ["ignore", "pipe", "pipe"],
    });
    relay(child.stdout, process.stdout, label);
    relay(child.stderr, process.stderr, label);
    child.on("exit", (code, signal) => {
      if (!stopping) console.error(`${label} exited (${signal ?? `code ${code}`}); the other processes keep serving`);
      if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(stopping ? 0 : 1);
    });
    children.push(child);
    // the first one alone: it creates the token file, the session key and the first admin
    if (i === 0) await healthy(`http://${local}:${p}`, child).catch((e: Error) => (stopAll("SIGTERM"), fail(e.message)));
  }
  await Promise.all(children.map((c, i) => healthy(`http://${local}:${port + i}`, c).catch((e: Error) => console.error(e.message))));
  console.log(`${processes} SightDesk processes on http://${local}:${port}${processes > 1 ? ` … :${port + processes - 1}` : ""} sharing ${redactedUrl(url)}; Ctrl-C stops them`);
}

main().catch((e: Error) => fail(e.message));
