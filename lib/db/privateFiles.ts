// The data directory holds secrets (the token file, the session key) and every prompt and
// answer SightDesk has stored: it is private to the account that runs SightDesk. The folder is
// 0700 and the files SightDesk writes there are 0600, whatever the process umask: modes are set
// explicitly (open with a mode, then fchmod/chmod), never left to the umask. SQLite creates its
// -wal, -shm and -journal files itself, with the mode of the database file, so the database file
// is created 0600 before SQLite first opens it. Looser modes found on start are tightened, with a
// warning naming the file (never its content). The user's own config.json is left alone.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "./url";

export type Warn = (message: string) => void;

/** Warnings go to stderr. */
const stderr: Warn = (message) => console.warn(message);

/** Unix permissions only: elsewhere (Windows) chmod cannot express them. */
const ENFORCED = process.platform !== "win32";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The files SightDesk itself writes in the data directory (and only those: config.json is the user's). */
export const DATA_DIR_FILES = [
  ".dashboard_token",
  ".session_secret",
  ".demo_admin_password",
  "sightdesk.db",
  "sightdesk.db-wal",
  "sightdesk.db-shm",
  "sightdesk.db-journal",
];

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, "0");

/**
 * Sets `mode` on an existing file or folder that group or others may access, with a warning;
 * a missing one is skipped. Returns whether it changed anything.
 */
export function tighten(target: string, mode: number, warn: Warn = stderr): boolean {
  if (!ENFORCED) return false;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    return false;
  }
  if ((stat.mode & 0o077) === 0) return false;
  try {
    fs.chmodSync(target, mode);
  } catch (e) {
    warn(`[sightdesk] warning: ${target} is accessible to other users (mode ${octal(stat.mode)}) and could not be changed to ${octal(mode)}: ${(e as Error).message}`);
    return false;
  }
  warn(`[sightdesk] warning: ${target} was accessible to other users (mode ${octal(stat.mode)}): changed to ${octal(mode)}`);
  return true;
}

const isDataDir = (dir: string) => path.resolve(dir) === dataDir();

/**
 * Creates a folder (and missing parents) 0700. An existing data directory that others may access
 * is tightened to 0700 with a warning (it is ours); other existing folders are left as they are.
 */
export function ensurePrivateDir(dir: string, warn: Warn = stderr): void {
  const created = fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (!ENFORCED) return;
  if (created !== undefined) {
    // `created` is the first folder made; the mode given to mkdir is reduced by the umask.
    for (let d = path.resolve(dir); ; d = path.dirname(d)) {
      fs.chmodSync(d, PRIVATE_DIR_MODE);
      if (d === path.resolve(created) || path.dirname(d) === d) break;
    }
  } else if (isDataDir(dir)) {
    tighten(dir, PRIVATE_DIR_MODE, warn);
  }
}

/**
 * Writes a file only this account may read: created (or truncated) with mode 0600 and set to
 * 0600 before anything is written, whatever the umask or the mode of a file already there.
 * `flags` "wx" creates it only when it does not exist (EEXIST otherwise).
 */
export function writePrivateFile(file: string, content: string, warn: Warn = stderr, flags: "w" | "wx" = "w"): void {
  ensurePrivateDir(path.dirname(file), warn);
  const fd = fs.openSync(file, flags, PRIVATE_FILE_MODE);
  try {
    if (ENFORCED) fs.fchmodSync(fd, PRIVATE_FILE_MODE);
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Creates `file` (0600) holding `content` unless it exists; returns what it holds then. When
 * several processes do so at once the first one wins and none reads it half-written: each
 * writes its own file aside, then links it into place (which fails if the name is taken).
 */
export function createPrivateFileOnce(file: string, content: string, warn: Warn = stderr): string {
  const aside = `${file}.${process.pid}.${crypto.randomBytes(6).toString("hex")}`;
  writePrivateFile(aside, content, warn);
  try {
    fs.linkSync(aside, file);
    return content;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return fs.readFileSync(file, "utf8");
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw e;
    return createExclusively(file, content, warn); // a file system without hard links (vfat, some SMB mounts)
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** `createPrivateFileOnce` with an exclusive create: the first wins (a loser reading at once may see it unfinished). */
function createExclusively(file: string, content: string, warn: Warn): string {
  try {
    writePrivateFile(file, content, warn, "wx");
    return content;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return fs.readFileSync(file, "utf8");
    throw e;
  }
}

/**
 * Before SQLite opens a database file: its folder exists (0700 when made here), the file exists
 * with mode 0600 (an empty file is an empty database), so the -wal, -shm and -journal files
 * SQLite creates later get 0600 too; existing ones with looser modes are tightened.
 */
export function preparePrivateSqliteFile(file: string, warn: Warn = stderr): void {
  ensurePrivateDir(path.dirname(file), warn);
  if (!ENFORCED) return;
  try {
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, PRIVATE_FILE_MODE);
    try {
      fs.fchmodSync(fd, PRIVATE_FILE_MODE);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  for (const suffix of ["", "-wal", "-shm", "-journal"]) tighten(file + suffix, PRIVATE_FILE_MODE, warn);
}

/**
 * On start (server, `npm start`'s migration step): the data directory exists and is 0700, and
 * the files SightDesk keeps in it are 0600; anything looser is tightened with a warning.
 */
export function secureDataDir(warn: Warn = stderr): void {
  const dir = dataDir();
  ensurePrivateDir(dir, warn);
  for (const name of DATA_DIR_FILES) tighten(path.join(dir, name), PRIVATE_FILE_MODE, warn);
}
