// The key that signs session cookies: NEXTAUTH_SECRET, or a random one kept in the data
// directory (mode 0600) so sessions survive restarts with zero setup. On PostgreSQL, where several
// processes may serve one database, a process that signs with another key than the others says so
// at start (checkSessionSecretShared).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Db } from "../db/client";
import { createPrivateFileOnce, PRIVATE_FILE_MODE, tighten, writePrivateFile } from "../db/privateFiles";
import { dialectOf } from "../db/sql";
import { dataDir } from "../db/url";

let cached: string | null = null;

const DIGEST_KEY = "session_secret_digest";

export function sessionSecret(): string {
  if (process.env.NEXTAUTH_SECRET) return process.env.NEXTAUTH_SECRET;
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
 * PostgreSQL without NEXTAUTH_SECRET: warns when this process signs session cookies with another
 * key than the last process started on the database (a data directory of its own): a sign-in
 * through one is then refused by the other. Only a digest of the key is stored, never the key:
 * whoever reads the database must not be able to sign a session.
 */
export async function checkSessionSecretShared(db: Db): Promise<void> {
  if (process.env.NEXTAUTH_SECRET || dialectOf(db) !== "postgres") return;
  const mine = crypto.createHash("sha256").update(`sightdesk session key digest\n${sessionSecret()}`).digest("hex");
  const before = await db.setting.findUnique({ where: { key: DIGEST_KEY } });
  await db.setting.upsert({ where: { key: DIGEST_KEY }, create: { key: DIGEST_KEY, value: mine }, update: { value: mine } });
  if (before && before.value !== mine) {
    console.warn(
      "[sightdesk] another server process on this database signed session cookies with a different key " +
        `(this one's is ${path.join(dataDir(), ".session_secret")}): a sign-in through one is refused by the other. ` +
        "Set NEXTAUTH_SECRET to one value in every process, or give them one data directory. (After replacing the key on purpose, ignore this once.)",
    );
  }
}
