// The token file's row is per data directory: processes on one database with data directories of
// their own keep each their own token valid; replacing a file replaces only its own row.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DASHBOARD_TOKEN_ID, dashboardTokenId, ensureDashboardToken } from "@/lib/auth/dashboardToken";
import { hashToken } from "@/lib/auth/tokenSecrets";
import { SCOPES } from "@/lib/auth/scopes";
import { useTestDb } from "../support/testDb";

const db = useTestDb("dashboard-token");
const dirs: string[] = [];
const saved = process.env.SIGHTDESK_DATA_DIR;
afterAll(() => {
  process.env.SIGHTDESK_DATA_DIR = saved;
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function startIn(dir: string) {
  process.env.SIGHTDESK_DATA_DIR = dir;
  return ensureDashboardToken(db());
}
const newDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-token-"));
  dirs.push(d);
  return d;
};
const valid = async (secret: string) => (await db().apiToken.findUnique({ where: { hash: hashToken(secret) } }))?.revokedAtNs === null;

describe("the dashboard token file on one database shared by several data directories", () => {
  it("keeps one row per directory, each valid, and a restart reuses its own", async () => {
    const a = newDir(), b = newDir();
    const secretA = await startIn(a);
    const secretB = await startIn(b);
    expect(secretA).not.toBe(secretB);
    expect(await startIn(a)).toBe(secretA);
    expect(await valid(secretA)).toBe(true);
    expect(await valid(secretB)).toBe(true);
    expect(dashboardTokenId(a)).not.toBe(dashboardTokenId(b));
  });

  it("replacing one directory's file retires only that file's secret", async () => {
    const a = newDir(), b = newDir();
    const oldA = await startIn(a);
    const secretB = await startIn(b);
    fs.rmSync(path.join(a, ".dashboard_token"));
    const newA = await startIn(a);
    expect(await valid(oldA)).toBe(false);
    expect(await valid(newA)).toBe(true);
    expect(await valid(secretB)).toBe(true);
  });

  it("starts when the directory is seen under another name (host renamed, volume mounted elsewhere), keeping its secret", async () => {
    const a = newDir();
    const secret = await startIn(a);
    const moved = `${a}-moved`;
    fs.renameSync(a, moved);
    dirs.push(moved);
    expect(await startIn(moved)).toBe(secret); // before, the row's unique hash made the start fail
    expect(await valid(secret)).toBe(true);
    // the same row, under the same name: what the token owns (its saved views) stays its own
    expect((await db().apiToken.findUniqueOrThrow({ where: { hash: hashToken(secret) } })).id).toBe(dashboardTokenId(a));
    expect(await startIn(moved)).toBe(secret);
    // its file replaced there later: the new secret is valid
    fs.rmSync(path.join(moved, ".dashboard_token"));
    expect(await valid(await startIn(moved))).toBe(true);
  });

  it("adopts the single row of an installation from before, keeping its secret", async () => {
    const dir = newDir();
    const secret = "ab".repeat(32);
    fs.writeFileSync(path.join(dir, ".dashboard_token"), `${secret}\n`, { mode: 0o600 });
    await db().apiToken.create({ data: { id: DASHBOARD_TOKEN_ID, name: "dashboard token file", hash: hashToken(secret), scopes: SCOPES.join(","), createdAtNs: 1n } });
    expect(await startIn(dir)).toBe(secret);
    expect(await db().apiToken.findUnique({ where: { id: DASHBOARD_TOKEN_ID } })).toBeNull();
    expect((await db().apiToken.findUnique({ where: { id: dashboardTokenId(dir) } }))?.hash).toBe(hashToken(secret));
  });
});
