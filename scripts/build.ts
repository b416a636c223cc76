// `next build`, unless the build directory already holds a build of exactly these sources.
// `npm test`, `npm run test:e2e`, the demo and the benches each need a build; run one after
// another (as CI does) they built the same sources again. The sources are every file git
// tracks or would track, read whole (no mtimes: a checkout or copy keeps the build good),
// except those no page or route imports: tests, benches, CI and prose.
import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const NOT_BUILT = [/^tests\//, /^bench\//, /^\.ci\//, /\.md$/];
const distDir = process.env.NEXT_DIST_DIR || ".next";
const stampFile = path.join(distDir, "sightdesk-sources.sha256");

/** A digest of the sources, or null where git cannot list them (then always build). */
function sourcesDigest(): string | null {
  let listed: string;
  try {
    listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return null;
  }
  const files = [...new Set(listed.split("\0").filter(Boolean))].filter((f) => !NOT_BUILT.some((re) => re.test(f))).sort();
  const hash = crypto.createHash("sha256").update(`dist ${distDir}\0`);
  for (const file of files) {
    hash.update(file).update("\0");
    // a tracked file deleted from the work tree counts as its absence
    hash.update(fs.existsSync(file) ? fs.readFileSync(file) : "(deleted)").update("\0");
  }
  return hash.digest("hex");
}

const before = sourcesDigest();
if (before && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === before) {
  console.log(`${distDir} is a build of these sources; not building again (npm run build forces one)`);
  process.exit(0);
}
fs.rmSync(stampFile, { force: true });
const build = spawnSync(process.execPath, [path.join("node_modules", "next", "dist", "bin", "next"), "build"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);
// a source edited while it built: the next run builds again
if (before && sourcesDigest() === before) fs.writeFileSync(stampFile, before);
