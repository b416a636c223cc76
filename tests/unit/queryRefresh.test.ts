// Browser code refreshes after a write through refreshAfterWrite (components/api/refresh.ts),
// never with TanStack's invalidateQueries alone: that waits for a first load still in flight,
// read before the write, and the list misses the change (the activity log and Settings did).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const ALLOWED = "components/api/refresh.ts";

describe("refreshing after a write", () => {
  it("goes through refreshAfterWrite everywhere in components/ and app/", () => {
    const files = ["components", "app"].flatMap((dir) =>
      fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f)).map((f) => path.join(dir, f)),
    );
    expect(files).toContain(ALLOWED);
    const direct = files.filter((f) => f !== ALLOWED && /\.invalidateQueries\(/.test(fs.readFileSync(path.join(ROOT, f), "utf8")));
    expect(direct).toEqual([]);
  });
});
