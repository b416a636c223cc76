// Prisma CLI configuration. The WebAssembly engine ("js") with a driver adapter works offline;
// the native engines Prisma would otherwise download do not (see ../shared/STACK.md).
import { defineConfig } from "prisma/config";
import { databaseUrl } from "./lib/db/url";
import { createAdapterFactory } from "./lib/db/adapter";

// The schema reads env("DATABASE_URL"); without a value the CLI falls back to downloading engines.
process.env.DATABASE_URL ??= databaseUrl();

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  async adapter() {
    return createAdapterFactory(databaseUrl());
  },
});
