// `next build`, unless the build directory already holds a build of exactly these sources.
// `npm test`, `npm run test:e2e`, the demo and the benches each need a build; run one after
// another (as CI does) they built the same sources again. The sources are every file git
// tracks or would track, read whole (no mtimes: a checkout or copy keeps the build good),
// except those no page or route imports (tests, benches, CI and prose), plus the generated
// Prisma clients the pages bundle (git ignores them), the installed packages' lock and Node's
// version.
import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { buildDir } from "../lib/config/buildDir";

const NOT_BUILT = [/^tests\//, /^bench\//, /^\.ci\//, /\.md$/];
const GENERATED = ["lib/db/generated", "lib/db/generated-pg", "prisma/postgres", "node_modules/.package-lock.json"];
const distDir = buildDir();
const stampFile = path.join(process.cwd(), distDir, "sightdesk-sources.sha256"); // where Next builds (it joins, even an absolute distDir)

/** Every file under `entry` (a file or a folder), sorted; none if it does not exist. */
function filesUnder(entry: string): string[] {
  if (!fs.existsSync(entry)) return [];
  if (!fs.statSync(entry).isDirectory()) return [entry];
  return fs.readdirSync(entry, { recursive: true, encoding: "utf8" }).map((f) => path.join(entry, f)).filter((f) => fs.statSync(f).isFile()).sort();
}

/** A file's bytes as they matter to the build: `next build` adds its own folder's types to tsconfig.json. */
function contentOf(file: string): Buffer | string {
  if (!fs.existsSync(file)) return "(deleted)"; // a tracked file deleted from the work tree
  if (file !== "tsconfig.json") return fs.readFileSync(file);
  return fs.readFileSync(file, "utf8").split("\n").filter((l) => !/"\.next[^"]*\/(dev\/)?types\//.test(l)).join("\n");
}

/** A digest of the sources, or null where git cannot list them (then always build). */
function sourcesDigest(): string | null {
  let listed: string;
  try {
    listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return null;
  }
  const tracked = [...new Set(listed.split("\0").filter(Boolean))].filter((f) => !NOT_BUILT.some((re) => re.test(f)) && !f.startsWith(`${distDir}/`)).sort();
  const hash = crypto.createHash("sha256").update(`dist ${distDir}\0node ${process.version}\0`);
  for (const file of [...tracked, ...GENERATED.flatMap(filesUnder)]) hash.update(file).update("\0").update(contentOf(file)).update("\0");
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
