// The token cache (lib/auth/identity.ts) on a real database: what a request can put in it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createToken, revokeToken } from "@/lib/auth/apiTokens";
import type { DbTx } from "@/lib/db/client";
import { tokenActor } from "@/lib/auth/identity";
import { newSecret } from "@/lib/auth/tokenSecrets";
import { useTestDb } from "../support/testDb";

const db = useTestDb("token-cache");
afterEach(() => vi.restoreAllMocks());

describe("the token cache", () => {
  it("keeps no entry for a secret that names no token: a flood of made-up secrets evicts nothing", async () => {
    // the cache's clock stands still: entries stay fresh however long the flood takes
    const now = performance.now();
    vi.spyOn(performance, "now").mockReturnValue(now);
    const made = await createToken(db(), { name: "kept", scopes: ["read"], createdBy: "user:test@example.test" });
    expect((await tokenActor(db(), made.token)).name).toBe("kept"); // cached now
    // the row goes without this process being told (as another process's change would, within 5 s)
    await db().apiToken.deleteMany({ where: { id: made.id } });
    for (let i = 0; i < 10_050; i++) await expect(tokenActor(db(), newSecret())).rejects.toThrow(/Invalid, expired or revoked/);
    // still the cached entry: the unknown secrets did not take its place
    expect((await tokenActor(db(), made.token)).name).toBe("kept");
  });

  it("does not keep a row read while the token was revoked in this process: the next request is refused", async () => {
    const made = await createToken(db(), { name: "revoked-mid-read", scopes: ["read"], createdBy: "user:test@example.test" });
    // the database as the request sees it, its token read held back after the row was read
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let read = () => {};
    const rowRead = new Promise<void>((r) => (read = r));
    const tokens = {
      findUnique: async (args: Parameters<DbTx["apiToken"]["findUnique"]>[0]) => {
        const row = await db().apiToken.findUnique(args);
        read();
        await gate;
        return row;
      },
      updateMany: (args: Parameters<DbTx["apiToken"]["updateMany"]>[0]) => db().apiToken.updateMany(args),
    };
    const slow = new Proxy(db(), { get: (target, key) => (key === "apiToken" ? tokens : Reflect.get(target, key)) }) as unknown as DbTx;
    const during = tokenActor(slow, made.token);
    await rowRead;
    await revokeToken(db(), made.id);
    release();
    expect((await during).name).toBe("revoked-mid-read"); // it began before the revocation
    await expect(tokenActor(db(), made.token)).rejects.toThrow(/Invalid, expired or revoked/);
  });
});
