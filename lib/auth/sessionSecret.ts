// The key that signs session cookies: NEXTAUTH_SECRET, or a random one kept in the data
// directory (mode 0600) so sessions survive restarts with zero setup.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createPrivateFileOnce, PRIVATE_FILE_MODE, tighten, writePrivateFile } from "../db/privateFiles";
import { dataDir } from "../db/url";

let cached: string | null = null;

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
