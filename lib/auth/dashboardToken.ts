// The dashboard token file (like AgentSight's `.dashboard_token`): created on first start, mode
// 0600, reused across restarts, carrying every scope, for local tools such as the CLI.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DbTx } from "../db/client";
import { createPrivateFileOnce, PRIVATE_FILE_MODE, tighten, writePrivateFile } from "../db/privateFiles";
import { dataDir } from "../db/url";
import { nowNs } from "../domain/time";
import { SCOPES } from "./scopes";
import { hashToken, newSecret } from "./tokenSecrets";

export const DASHBOARD_TOKEN_ID = "dashboard-token-file";

/**
 * Each data directory (on each host) has its own token file, so its row is its own: several
 * server processes on one database, each with a data directory of its own, must not replace
 * one another's token. The bare id is the row of installations from before that.
 */
export function dashboardTokenId(dir = dataDir()): string {
  const where = crypto.createHash("sha256").update(`${os.hostname()}\0${path.resolve(dir)}`).digest("hex").slice(0, 12);
  return `${DASHBOARD_TOKEN_ID}:${where}`;
}

export const isDashboardTokenId = (id: string) => id === DASHBOARD_TOKEN_ID || id.startsWith(`${DASHBOARD_TOKEN_ID}:`);

export function dashboardTokenPath(): string {
  return path.join(dataDir(), ".dashboard_token");
}

const TOKEN = /^[0-9a-f]{64}$/;

/**
 * Reads the token file, creating it (0600) when it is missing, or replacing it when it holds no
 * token; an existing file others may read is tightened to 0600 with a warning. Processes that
 * share the data directory and start together all keep the first one's secret: each of them
 * makes the file's secret their directory's token row, and a file written over by a later one
 * would hold a secret no row has.
 */
export function readOrCreateTokenFile(file = dashboardTokenPath()): string {
  let existing: string | null = null;
  try {
    existing = fs.readFileSync(file, "utf8").trim();
    if (TOKEN.test(existing)) {
      tighten(file, PRIVATE_FILE_MODE);
      return existing;
    }
  } catch {
    /* missing: create below */
  }
  const secret = newSecret();
  if (existing === null) {
    const kept = createPrivateFileOnce(file, `${secret}\n`).trim();
    if (TOKEN.test(kept)) return kept;
  }
  writePrivateFile(file, `${secret}\n`);
  return secret;
}

/** Makes the token file's secret a valid all-scope API token; returns the secret. */
export async function ensureDashboardToken(db: DbTx): Promise<string> {
  const secret = readOrCreateTokenFile();
  const hash = hashToken(secret);
  const id = dashboardTokenId();
  // An installation from before per-directory rows: its row becomes this directory's.
  await db.apiToken.updateMany({ where: { id: DASHBOARD_TOKEN_ID, hash }, data: { id } });
  // The file's secret has a row already under another name: the host was renamed (a container
  // recreated on the same volume), the directory mounted elsewhere, or one directory is shared
  // by processes on several hosts. That row is this file's and keeps its name — what the token
  // owns (saved views, forwarders) is owned by that name; a row of this name with another
  // secret held an earlier file here, which this one replaced.
  const held = await db.apiToken.findUnique({ where: { hash }, select: { id: true } });
  if (held && held.id !== id && isDashboardTokenId(held.id)) {
    await db.apiToken.deleteMany({ where: { id, NOT: { hash } } });
    await db.apiToken.update({ where: { id: held.id }, data: { revokedAtNs: null } });
    return secret;
  }
  await db.apiToken.upsert({
    where: { id },
    create: { id, name: "dashboard token file", hash, scopes: SCOPES.join(","), createdAtNs: nowNs() },
    update: { hash, revokedAtNs: null },
  });
  return secret;
}
