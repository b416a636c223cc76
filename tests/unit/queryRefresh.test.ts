// Browser code refreshes after a write through refreshAfterWrite (components/api/refresh.ts),
// never with TanStack's invalidateQueries alone: that waits for a first load still in flight,
// read before the write, and the list misses the change (the activity log and Settings did).
import { describe, expect, it } from "vitest";
import { filesUnder, readRepoFile } from "../support/repoFiles";

const ALLOWED = "components/api/refresh.ts";

describe("refreshing after a write", () => {
  it("goes through refreshAfterWrite everywhere in components/ and app/", () => {
    const files = ["components", "app"].flatMap((dir) => filesUnder(dir, (name) => /\.tsx?$/.test(name)));
    expect(files).toContain(ALLOWED);
    expect(files.filter((f) => f !== ALLOWED && /\.invalidateQueries\(/.test(readRepoFile(f)))).toEqual([]);
  });
});
