// createPrivateFileOnce: the first writer's content wins, whole, and nothing is left aside.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPrivateFileOnce } from "@/lib/db/privateFiles";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-once-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("createPrivateFileOnce", () => {
  it("creates the file (0600) the first time and hands later writers what it holds", () => {
    const file = path.join(dir, ".session_secret");
    expect(createPrivateFileOnce(file, "first\n")).toBe("first\n");
    expect(createPrivateFileOnce(file, "second\n")).toBe("first\n");
    expect(fs.readFileSync(file, "utf8")).toBe("first\n");
    if (process.platform !== "win32") expect((fs.statSync(file).mode & 0o777).toString(8)).toBe("600");
    expect(fs.readdirSync(dir)).toEqual([".session_secret"]); // the copies written aside are gone
  });
});
