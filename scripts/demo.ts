// `npm run demo`: migrate, load demo traffic through the ingest code, start the production
// server (built by the npm script), and print where to look. Safe to run again: ingest is
// idempotent and the demo reuses its first time base.
import { spawn } from "node:child_process";
import path from "node:path";
import { dashboardTokenPath, ensureDashboardToken } from "../lib/auth/dashboardToken";
import { createDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { loadDemo } from "../lib/demo/load";

const port = process.env.PORT || "3000";
const host = process.env.HOSTNAME || "0.0.0.0";
const browseHost = host === "0.0.0.0" ? "localhost" : host;
const url = `http://${browseHost}:${port}`;

async function waitForHealth(deadlineMs = 60_000): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

async function main() {
  await migrate();
  const db = createDb();
  const token = await ensureDashboardToken(db);
  const loaded = await loadDemo(db);
  const interesting = await db.interruption.groupBy({
    by: ["sessionId"],
    where: { sessionId: { not: null }, status: { not: "resolved" } },
    _count: { _all: true },
    orderBy: { _count: { sessionId: "desc" } },
    take: 3,
  });
  await db.$disconnect();
  console.log(
    loaded.calls
      ? `Demo data: ${loaded.calls} calls, ${loaded.interruptions} interruptions in ${loaded.sessions.length} sessions.`
      : `Demo data already loaded (${loaded.duplicates} calls skipped as duplicates).`,
  );

  const next = path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next");
  const server = spawn(process.execPath, [next, "start", "-p", port, "-H", host], { stdio: "inherit", env: process.env });
  const stop = (signal: NodeJS.Signals) => server.kill(signal);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  server.on("exit", (code) => process.exit(code ?? 0));

  if (!(await waitForHealth())) {
    console.error(`The server did not answer on ${url}/api/health.`);
    server.kill("SIGTERM");
    return;
  }
  const session = interesting[0]?.sessionId ?? loaded.sessions[0];
  console.log(`
SightDesk is running at ${url}
API token (all scopes): ${token}
  (stored in ${dashboardTokenPath()})

Sessions with the most open interruptions: ${interesting.map((s) => s.sessionId).join(", ")}
Try:
  curl -H "Authorization: Bearer $(cat ${path.relative(process.cwd(), dashboardTokenPath())})" ${url}/api/sessions/${session}/interruptions

Press Ctrl+C to stop.`);
}

main().catch((e: Error) => {
  console.error(e.stack ?? e.message);
  process.exit(1);
});
