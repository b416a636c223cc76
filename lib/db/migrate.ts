// Applies the committed migrations with `prisma migrate deploy` (the WebAssembly engine works
// offline, see STACK.md), then sets the SQLite pragmas that persist in the file.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { createDb } from "./client";
import { databaseUrl } from "./url";

const PRISMA_CLI = path.join(process.cwd(), "node_modules", "prisma", "build", "index.js");

export async function migrate(url = databaseUrl()): Promise<void> {
  const run = spawnSync(process.execPath, [PRISMA_CLI, "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    encoding: "utf8",
  });
  if (run.status !== 0) {
    throw new Error(`Database migration failed:\n${run.stdout}\n${run.stderr}`);
  }
  if (url.startsWith("file:")) {
    const db = createDb(url);
    try {
      // WAL lets readers work while ingest writes; it is a property of the file.
      await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
    } finally {
      await db.$disconnect();
    }
  }
}
