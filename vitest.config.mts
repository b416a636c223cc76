import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/db/**/*.test.ts", "tests/integration/**/*.test.ts"],
    environment: "node",
    globalSetup: ["tests/support/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Integration suites each start their own server; keep them from competing for 2 cores.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
