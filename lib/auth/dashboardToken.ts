// The dashboard token file (like AgentSight's `.dashboard_token`): created on first start, mode
// 0600, reused across restarts, carrying every scope, for local tools such as the CLI.
import fs from "node:fs";
import path from "node:path";
import type { DbTx } from "../db/client";
import { PRIVATE_FILE_MODE, tighten, writePrivateFile } from "../db/privateFiles";
import { dataDir } from "../db/url";
import { nowNs } from "../domain/time";
import { SCOPES } from "./scopes";
import { hashToken, newSecret } from "./tokenSecrets";

export const DASHBOARD_TOKEN_ID = "dashboard-token-file";

export function dashboardTokenPath(): string {
  return path.join(dataDir(), ".dashboard_token");
}

/**
 * Reads the token file, creating it (0600) when it is missing or empty; an existing file others
 * may read is tightened to 0600 with a warning.
 */
export function readOrCreateTokenFile(file = dashboardTokenPath()): string {
  try {
    const existing = fs.readFileSync(file, "utf8").trim();
    if (/^[0-9a-f]{64}$/.test(existing)) {
      tighten(file, PRIVATE_FILE_MODE);
      return existing;
    }
  } catch {
    /* missing: create below */
  }
  const secret = newSecret();
  writePrivateFile(file, `${secret}\n`);
  return secret;
}

/** Makes the token file's secret a valid all-scope API token; returns the secret. */
export async function ensureDashboardToken(db: DbTx): Promise<string> {
  const secret = readOrCreateTokenFile();
  const hash = hashToken(secret);
  await db.apiToken.upsert({
    where: { id: DASHBOARD_TOKEN_ID },
    create: { id: DASHBOARD_TOKEN_ID, name: "dashboard token file", hash, scopes: SCOPES.join(","), createdAtNs: nowNs() },
    update: { hash, revokedAtNs: null },
  });
  return secret;
}
