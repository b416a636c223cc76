// `npm run demo`: migrate, load demo traffic through the ingest code, start the production
// server (built by the npm script), and print where to look. Safe to run again: ingest is
// idempotent and the demo reuses its first time base.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dashboardTokenPath, ensureDashboardToken } from "../lib/auth/dashboardToken";
import { verifyPassword } from "../lib/auth/passwords";
import { createUser } from "../lib/auth/users";
import { config } from "../lib/config/load";
import { createDb, type Db } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { writePrivateFile } from "../lib/db/privateFiles";
import { dataDir } from "../lib/db/url";
import { loadDemo } from "../lib/demo/load";
import { nextStartArgs } from "../lib/server/nextStart";

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

const DEMO_ADMIN_EMAIL = "admin@sightdesk.local";

type DemoAdmin = { email: string; password: string | null; file: string; note: string | null };

const CREATE_HINT = `${process.env.SIGHTDESK_DATA_DIR ? `SIGHTDESK_DATA_DIR=${process.env.SIGHTDESK_DATA_DIR} ` : ""}npx sightdesk user create --email you@example.com --role admin`;

/**
 * The demo's admin: created on the first run with a random password kept in
 * $SIGHTDESK_DATA_DIR/.demo_admin_password (0600), read back from there on later runs.
 */
async function ensureDemoAdmin(db: Db): Promise<DemoAdmin> {
  const file = path.join(dataDir(), ".demo_admin_password");
  const existing = await db.user.findUnique({ where: { email: DEMO_ADMIN_EMAIL } });
  if (!existing) {
    const password = crypto.randomBytes(18).toString("base64url");
    await createUser(db, { email: DEMO_ADMIN_EMAIL, name: "Demo admin", role: "admin", password });
    writePrivateFile(file, `${password}\n`);
    return { email: DEMO_ADMIN_EMAIL, password, file, note: null };
  }
  let password: string | null = null;
  try {
    password = fs.readFileSync(file, "utf8").trim() || null;
  } catch {
    /* the file is gone */
  }
  if (!password) {
    return { email: DEMO_ADMIN_EMAIL, password: null, file, note: `its password file ${file} is missing; create another admin with:\n    ${CREATE_HINT}` };
  }
  if (!(await verifyPassword(password, existing.passwordHash))) {
    return { email: DEMO_ADMIN_EMAIL, password: null, file, note: `its password was changed since the demo made it; sign in with the new one, or create another admin with:\n    ${CREATE_HINT}` };
  }
  const note = existing.role === "admin" ? null : `this user's role is now ${existing.role}`;
  return { email: DEMO_ADMIN_EMAIL, password, file, note };
}

function adminBanner(admin: DemoAdmin): string {
  const lines = [`Sign in at ${url}/login`, `  email:    ${admin.email}`];
  const shown = path.relative(process.cwd(), admin.file);
  if (admin.password) lines.push(`  password: ${admin.password}`, `  (saved in ${shown.startsWith("..") ? admin.file : shown})`);
  if (admin.note) lines.push(`  Note: ${admin.note}`);
  return lines.join("\n");
}

async function main() {
  config(); // an invalid configuration stops the demo here, naming the key
  await migrate();
  const db = createDb();
  const token = await ensureDashboardToken(db);
  const loaded = await loadDemo(db);
  const admin = await ensureDemoAdmin(db);
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

  const server = spawn(process.execPath, nextStartArgs(process.cwd(), port, host), { stdio: "inherit", env: process.env });
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

${adminBanner(admin)}

API token (all scopes): ${token}
  (stored in ${dashboardTokenPath()})

Connect your own agents: ${url}/connect
  (copy-paste setup for the recording proxy, OpenTelemetry, AgentSight and the REST API,
  an ingest token minted on the spot, and each source's arrivals as they land)

Sessions with the most open interruptions: ${interesting.map((s) => s.sessionId).join(", ")}
Try:
  curl -H "Authorization: Bearer $(cat ${path.relative(process.cwd(), dashboardTokenPath())})" ${url}/api/sessions/${session}/interruptions

Press Ctrl+C to stop.`);
}

main().catch((e: Error) => {
  console.error(e.stack ?? e.message);
  process.exit(1);
});
