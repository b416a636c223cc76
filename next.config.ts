import type { NextConfig } from "next";
import { FRAME_HEADERS } from "./lib/api/frameHeaders";
import { buildDir } from "./lib/config/buildDir";
import { bundleIngestWorker } from "./scripts/bundleIngestWorker";

const nextConfig: NextConfig = {
  // Native and driver packages are loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg"],
  poweredByHeader: false,
  // Next answers a path ending in "/" with a redirect to the path without it, before any route:
  // an upstream declaring its routes with the slash (FastAPI) redirects back to it, and an agent
  // going through the mounted proxy (/proxy/*) went round until its client gave up. Pages get
  // that redirect from proxy.ts instead.
  skipTrailingSlashRedirect: true,
  // A separate build folder lets parallel work build and serve side by side (NEXT_DIST_DIR).
  distDir: buildDir(),
  // The build cache speeds up the next build of a checkout; CI builds a fresh clone once, where
  // writing it cost 10 s of a 50 s build. (CI=false or CI=0 is not CI.)
  experimental: {
    turbopackFileSystemCacheForBuild: ["", "0", "false"].includes(process.env.CI ?? ""),
    // `next start` loads every route at start so that first visits are quick. Servers that serve
    // a few routes and stop (the integration tests' ~40 per run) skip it: ~0.55 CPU-s less each.
    preloadEntriesOnStart: process.env.SIGHTDESK_PRELOAD_ROUTES !== "0",
  },
  // The ingest worker thread runs outside Next's bundles: it gets its own (lib/api/ingestWorkerFiles.ts).
  compiler: { runAfterProductionCompile: ({ projectDir, distDir }) => bundleIngestWorker(projectDir, distDir) },
  async headers() {
    return [{ source: "/:path*", headers: FRAME_HEADERS }];
  },
};

export default nextConfig;
