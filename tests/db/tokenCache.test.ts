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

describe("making a token", () => {
  it("asks the database whether its user is an admin now, whatever the caller's cached role says", async () => {
    const { createUser } = await import("@/lib/auth/users");
    const { createTokenAs } = await import("@/lib/auth/apiTokens");
    const user = await createUser(db(), { email: "was-admin@example.test", role: "responder", password: "was-admin-pass-1" });
    // a session read before the demotion (another process's cache) still says admin
    const stale = { kind: "user" as const, id: user.id, name: user.email, scopes: ["read", "triage", "ingest", "forwarder", "admin"] as const, role: "admin" };
    await expect(createTokenAs(db(), { ...stale, scopes: [...stale.scopes] }, { name: "late", scopes: ["admin"] })).rejects.toThrow(/no longer an admin/);
    // through a token of hers: the same
    await expect(createTokenAs(db(), { kind: "token", id: "t", name: "hers", scopes: ["admin"], actsFor: `user:${user.email}` }, { name: "late-2", scopes: ["read"] })).rejects.toThrow(/no longer an admin/);
    expect(await db().apiToken.count({ where: { createdBy: `user:${user.email}` } })).toBe(0);
    // the token file's token makes tokens as itself
    const made = await createTokenAs(db(), { kind: "token", id: "f", name: "dashboard token file", scopes: ["admin"] }, { name: "ok", scopes: ["read"] });
    expect(made.created_by).toBe("token:dashboard token file");
  });
});

describe("at start", () => {
  it("revokes tokens beyond what their makers' roles allow now, and those of users no longer there", async () => {
    const { createUser } = await import("@/lib/auth/users");
    const { revokeTokensOfLostRights } = await import("@/lib/auth/apiTokens");
    await createUser(db(), { email: "now-viewer@example.test", role: "viewer", password: "now-viewer-pass-1" });
    const keep = await createToken(db(), { name: "reads", scopes: ["read"], createdBy: "user:now-viewer@example.test" });
    const beyond = await createToken(db(), { name: "triages", scopes: ["read", "triage"], createdBy: "user:now-viewer@example.test" });
    const orphan = await createToken(db(), { name: "gone", scopes: ["read"], createdBy: "user:gone@example.test" });
    const file = await createToken(db(), { name: "by the file", scopes: ["admin"], createdBy: "token:dashboard token file" });
    expect(await revokeTokensOfLostRights(db())).toBe(2);
    const revoked = async (id: string) => (await db().apiToken.findUniqueOrThrow({ where: { id } })).revokedAtNs !== null;
    expect([await revoked(keep.id), await revoked(beyond.id), await revoked(orphan.id), await revoked(file.id)]).toEqual([false, true, true, false]);
    expect(await revokeTokensOfLostRights(db())).toBe(0);
  });
});
