// Applies the committed migrations with `prisma migrate deploy` (the WebAssembly engine works
// offline, see STACK.md): prisma.config.ts picks the migration folder of the URL's provider.
import { spawnSync } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { createDb } from "./client";
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
  if (provider === "sqlite") {
    const db = createDb(url);
    try {
      // WAL lets readers work while ingest writes; it is a property of the file.
      await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
    } finally {
      await db.$disconnect();
    }
  }
}

/** Creates the URL's database when the server has none of that name (first start on a new server). */
async function ensurePostgresDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1)) || "postgres";
  const connectsTo = async (target: string) => {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    return client;
  };
  try {
    await (await connectsTo(url)).end();
    return;
  } catch (e) {
    if ((e as { code?: string }).code !== "3D000") throw prepareError(url, name, e); // 3D000: no such database
  }
  const admin = new URL(url);
  admin.pathname = "/postgres";
  try {
    const client = await connectsTo(admin.toString());
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } finally {
      await client.end();
    }
  } catch (e) {
    throw prepareError(url, name, e);
  }
}

const prepareError = (url: string, name: string, e: unknown) =>
  new Error(`DATABASE_URL: cannot prepare database "${name}" at ${redactedUrl(url)}: ${(e as Error).message}`);
