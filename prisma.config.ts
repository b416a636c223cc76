// Prisma CLI configuration. The WebAssembly engine ("js") with a driver adapter works offline;
// the native engines Prisma would otherwise download do not (see ../shared/STACK.md).
// The provider follows DATABASE_URL (`npm run db:generate` passes one URL of each kind, no server
// needed); the PostgreSQL schema is derived from the SQLite one.
import { defineConfig } from "prisma/config";
import { createAdapterFactory } from "./lib/db/adapter";
import { PRISMA_FILES, writePostgresSchema } from "./lib/db/schemaFiles";
import { databaseUrl, providerOf } from "./lib/db/url";

const provider = providerOf(databaseUrl());
if (provider === "postgresql") writePostgresSchema();

// The schema reads env("DATABASE_URL"); without a value the CLI falls back to downloading engines.
process.env.DATABASE_URL ??= databaseUrl();

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: PRISMA_FILES[provider].schema,
  migrations: { path: PRISMA_FILES[provider].migrations },
  async adapter() {
    return createAdapterFactory(databaseUrl());
  },
});
