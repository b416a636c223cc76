// Password checks cost one scrypt derivation whatever the stored value, so the time of a failed
// sign-in does not tell a single sign-on user (no password) from a wrong password.
import crypto from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hashPassword, verifyPassword } from "@/lib/auth/passwords";

afterEach(() => vi.restoreAllMocks());

describe("verifyPassword", () => {
  it("derives once for a right password, a wrong one, and a user with no password (single sign-on)", async () => {
    const stored = await hashPassword("right-password-1");
    const scrypt = vi.spyOn(crypto, "scrypt");
    expect(await verifyPassword("right-password-1", stored)).toBe(true);
    expect(await verifyPassword("wrong-password-1", stored)).toBe(false);
    expect(await verifyPassword("any-password-1", "!oidc")).toBe(false);
    expect(scrypt).toHaveBeenCalledTimes(3);
  });
});
