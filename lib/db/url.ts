import path from "node:path";

/** Folder for the SQLite file and the dashboard token file. */
export function dataDir(): string {
  return path.resolve(process.env.SIGHTDESK_DATA_DIR || "./data");
}

/** The database URL: DATABASE_URL, or the SQLite file in the data directory. */
export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (url) return url;
  return `file:${path.join(dataDir(), "sightdesk.db")}`;
}

/** Prisma's name for the database a URL points at. */
export type Provider = "sqlite" | "postgresql";

export function providerOf(url: string): Provider {
  if (url.startsWith("file:")) return "sqlite";
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgresql";
  throw new Error(`DATABASE_URL: unsupported database URL "${url.split(":")[0]}:…" (expected file:… or postgresql://…)`);
}

export function sqliteFilePath(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  return path.resolve(url.slice("file:".length));
}

/** The URL with its password masked, for logs and the settings page. */
export function redactedUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:…@");
}
