// This repository's files, for the tests that check the code itself (layers, page auth, test
// layout, refresh after writes).
import fs from "node:fs";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "../..");

/** Repository-relative paths (`lib/db/client.ts`) of the files under `dir` whose name `matches`. */
export function filesUnder(dir: string, matches: (name: string) => boolean): string[] {
  return fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const file = `${dir}/${e.name}`;
    if (e.isDirectory()) return filesUnder(file, matches);
    return matches(e.name) ? [file] : [];
  });
}

/** A repository file's text. */
export const readRepoFile = (file: string): string => fs.readFileSync(path.join(REPO_ROOT, file), "utf8");
