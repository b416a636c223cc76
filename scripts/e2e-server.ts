// The server the browser tests run against: a fresh data directory with seeded users, the demo
// traffic and an XSS probe, swept once (as the server's first sweep would, a few seconds after
// it starts: the demo's hanging turns become interruptions, and a test that ran first saw counts
// change under it), then the production build (`next start`).
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
import { config } from "../lib/config/load";
import { runSweep } from "../lib/sweeps/sweep";
import { loadDemo } from "../lib/demo/load";
import { nextStartArgs } from "../lib/server/nextStart";

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
  const swept = await runSweep(db, config(), BigInt(Date.now()) * 1_000_000n);
  console.log(`[e2e] seeded and swept once: ${swept.unsettledTurns} unsettled turns flagged`);
  await db.$disconnect();
  return dataDir;
}

seed()
  .then((dataDir) => {
    const port = process.env.E2E_PORT ?? "3210";
    const server = spawn(process.execPath, nextStartArgs(".", port, "127.0.0.1"), {
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
