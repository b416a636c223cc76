// The server the browser tests run against: a fresh data directory with seeded users, the demo
// traffic and an XSS probe, then the production build (`next start`).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { USERS } from "../tests/e2e/fixtures";
import { ingestCallBatch } from "../lib/api/ingest";
import { createUser } from "../lib/auth/users";
import { createDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { dropDatabase } from "../lib/db/postgresAdmin";
import { providerOf } from "../lib/db/url";
import { loadDemo } from "./demo/load";

export const XSS_SESSION = "e2e-xss-session";
export const XSS_PAYLOAD = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`;

async function seed() {
  const dataDir = path.resolve(`.tmp/e2e-${process.env.E2E_PORT ?? "3210"}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.env.SIGHTDESK_DATA_DIR = dataDir;
  const url = process.env.DATABASE_URL;
  if (url && providerOf(url) === "postgresql") await dropDatabase(url); // start from an empty database there too
  await migrate();
  const db = createDb();
  for (const u of Object.values(USERS)) await createUser(db, { email: u.email, password: u.password, role: u.role });
  await loadDemo(db);
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  await ingestCallBatch(db, {
    call_id: "e2e-xss-call",
    session_id: XSS_SESSION,
    agent_name: `agent${XSS_PAYLOAD}`,
    start_ns: String(start),
    end_ns: String(start + 500_000_000n),
    status_code: 500,
    error: `upstream said ${XSS_PAYLOAD}`,
    input_messages: [{ role: "user", parts: [{ type: "text", content: `please echo ${XSS_PAYLOAD}` }] }],
    output_messages: [{ role: "assistant", parts: [{ type: "text", content: XSS_PAYLOAD }] }],
  });
  await db.$disconnect();
  return dataDir;
}

seed()
  .then((dataDir) => {
    const port = process.env.E2E_PORT ?? "3210";
    const next = path.join("node_modules", "next", "dist", "bin", "next");
    const server = spawn(process.execPath, [next, "start", "-p", port, "-H", "127.0.0.1"], {
      stdio: "inherit",
      // and the DATABASE_URL the seed used; the alert specs' receivers listen on loopback
      env: { SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8", ...process.env, SIGHTDESK_DATA_DIR: dataDir },
    });
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
    server.on("exit", (code) => process.exit(code ?? 0));
  })
  .catch((e: Error) => {
    console.error(e.stack ?? e.message);
    process.exit(1);
  });
