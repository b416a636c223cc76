import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3210);

// Debian's Chromium (never `playwright install`); the flags keep it off the closed network.
export default defineConfig({
  testDir: "tests/e2e",
  outputDir: `test-results/e2e-${PORT}`,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  // Recording a trace of every test took 40 % of the suite's CPU (DOM snapshots and screencast
  // at every step): a failed test runs again, traced, and a pass on that retry still fails the run.
  retries: 1,
  failOnFlakyTests: true,
  reporter: process.env.CI ? [["list"], ["json", { outputFile: "test-results/e2e.json" }]] : "list",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: "on-first-retry",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
  },
  webServer: {
    command: `npx tsx scripts/e2e-server.ts`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    env: { E2E_PORT: String(PORT) },
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
  },
});
