// The key that signs session cookies: NEXTAUTH_SECRET, or a random one kept in the data
// directory (mode 0600) so sessions survive restarts with zero setup. On PostgreSQL, where several
// processes may serve one database from data directories of their own, they all sign with the
// key the first of them stored in the database (shareSessionSecret, at start).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Db } from "../db/client";
import { createPrivateFileOnce, PRIVATE_FILE_MODE, tighten, writePrivateFile } from "../db/privateFiles";
import { dialectOf } from "../db/sql";
import { dataDir } from "../db/url";

let cached: string | null = null;

// On globalThis: Next.js may load this module once per route bundle, and every copy signs alike.
const SHARED = Symbol.for("sightdesk.sharedSessionSecret");
const shared = globalThis as unknown as { [SHARED]?: string };
const SETTING_KEY = "session_secret";

export function sessionSecret(): string {
  if (process.env.NEXTAUTH_SECRET) return process.env.NEXTAUTH_SECRET;
  if (shared[SHARED]) return shared[SHARED];
  if (cached) return cached;
  const file = path.join(dataDir(), ".session_secret");
  let existing: string | null = null;
  try {
    existing = fs.readFileSync(file, "utf8").trim();
    if (existing.length >= 32) {
      tighten(file, PRIVATE_FILE_MODE); // others could read it: 0600, with a warning
      return (cached = existing);
    }
  } catch {
    /* first start */
  }
  const secret = crypto.randomBytes(32).toString("hex");
  // first start: processes starting together (a cluster) all keep the first one's key, or a
  // user's cookie would be refused by the others; a key too short to use is replaced
  if (existing === null) return (cached = createPrivateFileOnce(file, `${secret}\n`).trim());
  writePrivateFile(file, `${secret}\n`);
  return (cached = secret);
}

/**
 * PostgreSQL without NEXTAUTH_SECRET: signs with the key the database holds, storing this
 * process's own when there is none yet (so a single process keeps the sessions it signed). Else a
 * cookie signed by one process of a cluster is refused by another with a data directory of its own.
 */
export async function shareSessionSecret(db: Db): Promise<void> {
  if (process.env.NEXTAUTH_SECRET || dialectOf(db) !== "postgres") return;
  await db.$executeRawUnsafe(`INSERT INTO "Setting" ("key", "value") VALUES ($1, $2) ON CONFLICT ("key") DO NOTHING`, SETTING_KEY, sessionSecret());
  const row = await db.setting.findUniqueOrThrow({ where: { key: SETTING_KEY } });
  shared[SHARED] = row.value;
}
