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

export function sqliteFilePath(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  return path.resolve(url.slice("file:".length));
}
