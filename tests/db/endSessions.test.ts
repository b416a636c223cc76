// Signing out (lib/auth/users.ts endSessions, next-auth's signOut event) on a real database: the
// user's session version moves on once, so every cookie issued before is refused.
import { describe, expect, it } from "vitest";
import { createUser, endSessions } from "@/lib/auth/users";
import { forgetUser, sessionUser } from "@/lib/auth/identity";
import { useTestDb } from "../support/testDb";

const db = useTestDb("end-sessions");

const version = async (id: string) => (await db().user.findUniqueOrThrow({ where: { id } })).sessionVersion;

describe("signing out", () => {
  it("moves the user's session version on once per cookie, and ignores a cookie without a user", async () => {
    const user = await createUser(db(), { email: "leaving@example.test", role: "viewer", password: "leaving-pass-1" });
    const before = await version(user.id);
    expect(await endSessions(db(), { uid: user.id, sv: before })).toBe(user.id);
    expect(await version(user.id)).toBe(before + 1);
    // the same (now stale) cookie signing out again, e.g. a second tab: nothing more changes
    await endSessions(db(), { uid: user.id, sv: before });
    expect(await version(user.id)).toBe(before + 1);
    expect(await endSessions(db(), {})).toBeNull();
    expect(await endSessions(db(), null)).toBeNull();
  });

  it("names the user of a current session only: not after sign-out, not for a removed user", async () => {
    const user = await createUser(db(), { email: "reading@example.test", role: "responder", password: "reading-pass-1" });
    const cookie = { uid: user.id, sv: await version(user.id) };
    expect((await sessionUser(db(), cookie))?.email).toBe("reading@example.test");
    await endSessions(db(), cookie);
    forgetUser(user.id); // as the signOut event does
    expect(await sessionUser(db(), cookie)).toBeNull();
    const renewed = { uid: user.id, sv: await version(user.id) };
    expect((await sessionUser(db(), renewed))?.id).toBe(user.id);
    await db().user.delete({ where: { id: user.id } });
    forgetUser(user.id);
    expect(await sessionUser(db(), renewed)).toBeNull();
    expect(await sessionUser(db(), { sv: 0 })).toBeNull();
  });

  it("reads the user again for a cookie newer than the cached row (signed in again through another process)", async () => {
    const user = await createUser(db(), { email: "again@example.test", role: "viewer", password: "again-pass-1" });
    const old = { uid: user.id, sv: await version(user.id) };
    expect((await sessionUser(db(), old))?.id).toBe(user.id); // cached here
    // another process signs the user out (no forgetUser in this one) and the user signs in again
    await endSessions(db(), old);
    const renewed = { uid: user.id, sv: await version(user.id) };
    expect((await sessionUser(db(), renewed))?.id).toBe(user.id);
    expect(await sessionUser(db(), old)).toBeNull(); // and the row read again ends the old cookie here at once
  });
});
