// Bundles the ingest worker thread (lib/api/ingestWorker.ts and what it imports) into the build
// folder; next.config.ts runs it after `next build` compiles. Installed packages stay outside
// the bundle and load from node_modules, as the server's own do.
import path from "node:path";
import { WORKER_BUNDLE } from "../lib/api/ingestWorkerFiles";

export async function bundleIngestWorker(projectDir: string, distDir: string): Promise<void> {
  const { build } = await import("esbuild");
  await build({
    absWorkingDir: projectDir,
    entryPoints: [path.join(projectDir, "lib", "api", "ingestWorker.ts")],
    outfile: path.join(distDir, WORKER_BUNDLE), // Next passes its build folder joined to the project
    bundle: true,
    platform: "node",
    target: "node20", // the oldest Node SightDesk runs on, whichever built it
    format: "cjs",
    packages: "external",
    logLevel: "warning",
  });
}
