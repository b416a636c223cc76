// Applies the committed migrations with `prisma migrate deploy` (the WebAssembly engine works
// offline, see STACK.md): prisma.config.ts picks the migration folder of the URL's provider.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { createDb } from "./client";
import { ensureOpenCounts } from "./openCounts";
import { createDatabase, databaseName, withClient } from "./postgresAdmin";
import { databaseUrl, providerOf, redactedUrl } from "./url";

const PRISMA_CLI = path.join(process.cwd(), "node_modules", "prisma", "build", "index.js");

export async function migrate(url = databaseUrl()): Promise<void> {
  const provider = providerOf(url);
  if (provider === "postgresql") await ensurePostgresDatabase(url);
  const run = spawnSync(process.execPath, [PRISMA_CLI, "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    encoding: "utf8",
  });
  if (run.status !== 0) {
    throw new Error(`Database migration failed:\n${run.stdout}\n${run.stderr}`);
  }
  const db = createDb(url);
  try {
    // WAL lets readers work while ingest writes; it is a property of the file.
    if (provider === "sqlite") await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
    await ensureOpenCounts(db);
  } finally {
    await db.$disconnect();
  }
}

/** Creates the URL's database when the server has none of that name (first start on a new server). */
async function ensurePostgresDatabase(url: string): Promise<void> {
  const failed = (e: unknown) => new Error(`DATABASE_URL: cannot prepare database "${databaseName(url)}" at ${redactedUrl(url)}: ${(e as Error).message}`);
  try {
    await withClient(url, async () => undefined);
    return;
  } catch (e) {
    if ((e as { code?: string }).code !== "3D000") throw failed(e); // 3D000: no such database
  }
  await createDatabase(url).catch((e) => {
    throw failed(e);
  });
}
