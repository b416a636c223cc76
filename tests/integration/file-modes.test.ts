// File permissions (issue 11): the data directory is 0700 and everything the server and the CLI
// write in it (the SQLite database with its -wal and -shm files, the token file, the session
// secret) is 0600, whatever the process umask; looser modes found at start are tightened, with
// a warning naming the file (never its content). The user's own config.json is left alone.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, uid } from "./support/payloads";
import { startServer, type TestServer } from "./support/server";

const ROOT = path.resolve(__dirname, "../..");
const BIN = path.join(ROOT, "bin", "sightdesk.mjs");
const posix = process.platform !== "win32";

const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8).padStart(4, "0");
/** Every entry of a folder with its mode, e.g. {"sightdesk.db": "0600"}. */
const modes = (dir: string) => Object.fromEntries(fs.readdirSync(dir).map((f) => [f, mode(path.join(dir, f))]));

/** Runs `fn` with a loose umask (group-writable, world-readable files by default), then restores it. */
async function withLooseUmask<T>(fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(0o002);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

const parents: string[] = [];
const newParent = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-modes-"));
  parents.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of parents) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!posix)("a fresh data directory", { timeout: 120_000 }, () => {
  let server: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = path.join(newParent(), "data"); // does not exist yet: `npm start` creates it
    server = await withLooseUmask(() => startServer({ NEXTAUTH_SECRET: "" }, { dataDir, databaseInDataDir: true }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("is 0700 and every file the server writes in it is 0600, the SQLite -wal and -shm included", async () => {
    const calls = Array.from({ length: 20 }, (_, i) => call({ session_id: uid("modes"), status_code: i % 4 === 0 ? 529 : 200 }, i * 1000));
    const ingest = await server.api("/api/ingest/calls", { method: "POST", body: JSON.stringify(calls) });
    expect(ingest.status, await ingest.text()).toBe(200);
    // the session secret is made on the first use of sign-in
    expect((await fetch(`${server.url}/api/auth/csrf`)).status).toBe(200);
    expect((await server.api("/api/interruptions")).status).toBe(200);

    expect(mode(dataDir)).toBe("0700");
    const files = modes(dataDir);
    for (const name of ["sightdesk.db", "sightdesk.db-wal", "sightdesk.db-shm", ".dashboard_token", ".session_secret"]) {
      expect(files, name).toHaveProperty([name]);
    }
    for (const [name, m] of Object.entries(files)) expect(`${name} ${m}`).toBe(`${name} 0600`);
    expect(server.log()).not.toContain("accessible to other users");
  });
});

describe.skipIf(!posix)("a data directory with loose permissions", { timeout: 120_000 }, () => {
  let server: TestServer;
  let dataDir: string;
  const token = "ab".repeat(32);
  const secret = "cd".repeat(32);

  beforeAll(async () => {
    dataDir = path.join(newParent(), "data");
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(path.join(dataDir, ".dashboard_token"), `${token}\n`);
    fs.chmodSync(path.join(dataDir, ".dashboard_token"), 0o644);
    fs.writeFileSync(path.join(dataDir, ".session_secret"), `${secret}\n`);
    fs.chmodSync(path.join(dataDir, ".session_secret"), 0o640);
    fs.writeFileSync(path.join(dataDir, "config.json"), "{}\n");
    fs.chmodSync(path.join(dataDir, "config.json"), 0o644);
    server = await startServer({ NEXTAUTH_SECRET: "" }, { dataDir });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("is tightened at start: the folder to 0700, the token file and session secret to 0600, each with a warning", async () => {
    expect(server.token).toBe(token); // the existing token is kept
    expect(mode(dataDir)).toBe("0700");
    expect(mode(path.join(dataDir, ".dashboard_token"))).toBe("0600");
    expect(mode(path.join(dataDir, ".session_secret"))).toBe("0600");
    expect(mode(path.join(dataDir, "config.json"))).toBe("0644"); // the user's own file
    const err = server.stderr();
    expect(err).toContain(`warning: ${path.join(dataDir, ".dashboard_token")} was accessible to other users (mode 0644): changed to 0600`);
    expect(err).toContain(`warning: ${path.join(dataDir, ".session_secret")} was accessible to other users (mode 0640): changed to 0600`);
    expect(err).toContain(`warning: ${dataDir} was accessible to other users (mode 0755): changed to 0700`);
    expect(err).not.toContain("config.json");
    expect(server.log()).not.toContain(token);
    expect(server.log()).not.toContain(secret);
  });
});

describe.skipIf(!posix)("sightdesk user create on a fresh data directory", { timeout: 120_000 }, () => {
  it("makes the folder 0700 and the database 0600", async () => {
    const dataDir = path.join(newParent(), "data");
    const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    for (const k of Object.keys(base)) if (k.startsWith("SIGHTDESK_") || k === "DATABASE_URL") delete base[k];
    const run = await withLooseUmask(
      () =>
        new Promise<{ code: number; stderr: string }>((resolve) =>
          execFile(
            process.execPath,
            [BIN, "user", "create", "--email", "modes@example.com", "--role", "admin", "--password", "modes-password-1"],
            { cwd: ROOT, env: { ...base, SIGHTDESK_DATA_DIR: dataDir }, timeout: 90_000 },
            (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, stderr }),
          ),
        ),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(mode(dataDir)).toBe("0700");
    const files = modes(dataDir);
    expect(files).toHaveProperty(["sightdesk.db"]);
    for (const [name, m] of Object.entries(files)) expect(`${name} ${m}`).toBe(`${name} 0600`);
  });
});
