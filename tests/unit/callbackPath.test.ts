// Where sign-in leads back to: only a path on this site, never another origin.
import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "@/lib/auth/callbackPath";

describe("safeCallbackPath", () => {
  it("keeps local paths with their query and hash", () => {
    expect(safeCallbackPath("/inbox?severity=critical#row-3")).toBe("/inbox?severity=critical#row-3");
    expect(safeCallbackPath("/sessions/a%2Fb")).toBe("/sessions/a%2Fb");
  });
  it("sends anything that could lead off-site, or back to sign-in or the API, to /", () => {
    const bad = ["https://evil.example/", "//evil.example", "/\\evil.example", "/.//evil.example", "/..//evil.example", "/%2e//evil.example", "/a/..//evil.example", "javascript:alert(1)", "/login?x=1", "/api/me", "inbox", 42];
    for (const value of bad) expect(safeCallbackPath(value), String(value)).toBe("/");
  });
});
