// Every page of the signed-in app checks the user itself (issue 11): layouts do not re-run on
// client navigation and a page's RSC payload can be fetched on its own, so the check in
// app/(app)/layout.tsx alone does not protect a page. A page file under app/(app) that does not
// call requireUser() fails here.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, REPO_ROOT } from "../support/repoFiles";

const APP = path.join(REPO_ROOT, "app/(app)");

const pageFiles = (): string[] => filesUnder("app/(app)", (name) => /^page\.(tsx|ts|jsx|js|mdx)$/.test(name)).map((f) => path.join(REPO_ROOT, f));

/** The source without comments, so that a commented-out call does not count. */
const code = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1");

describe("pages under app/(app)", () => {
  const pages = pageFiles();

  it("are found (overview, inbox, interruption, sessions, session, settings)", () => {
    const routes = pages.map((f) => path.relative(APP, path.dirname(f)) || ".").sort();
    expect(routes).toEqual(expect.arrayContaining([".", "inbox", "interruptions/[id]", "sessions", "sessions/[id]", "settings"]));
  });

  it.each(pages.map((f) => [path.relative(APP, f), f]))("%s awaits requireUser() before rendering", (_name, file) => {
    const src = code(file);
    expect(src, "imports requireUser from @/lib/auth/requireUser").toMatch(/import\s*\{[^}]*\brequireUser\b[^}]*\}\s*from\s*["']@\/lib\/auth\/requireUser["']/);
    expect(src, "calls `await requireUser(` in the page component").toMatch(/\bawait\s+requireUser\s*\(/);
    // the page component itself must be async to await it
    expect(src).toMatch(/export\s+default\s+async\s+function/);
  });

  it("the layout checks too (defence in depth)", () => {
    expect(code(path.join(APP, "layout.tsx"))).toMatch(/\bawait\s+requireUser\s*\(/);
  });
});
