// Where the ingest worker thread's code is. `next build` bundles it into the build folder
// (scripts/bundleIngestWorker.ts), so a production server loads plain JavaScript; elsewhere
// (`next dev`, tests in-process, a build from before the bundle) it loads the TypeScript
// sources through tsx, which costs about twice the CPU at every start.
import fs from "node:fs";
import path from "node:path";
import { buildDir } from "../config/buildDir";

/** The bundle's place inside the build folder. */
export const WORKER_BUNDLE = path.join("sightdesk", "ingest-worker.js");

/** The bundle of the project at `root`, in its build folder (joined as Next joins it: an absolute NEXT_DIST_DIR lies under root too). */
export const workerBundle = (root = process.cwd()): string => path.join(root, buildDir(), WORKER_BUNDLE);

/** The worker's entry for this process: the build's bundle in production, else the sources. */
export function ingestWorkerEntry(root = process.cwd()): string {
  const bundle = workerBundle(root);
  if (process.env.NODE_ENV === "production" && fs.existsSync(bundle)) return bundle;
  return path.join(root, "lib", "api", "ingestWorker.cjs");
}
