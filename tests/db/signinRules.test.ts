// The sign-in rules as functions, against a real (migrated) database: the throttle's window and
// Retry-After with a chosen clock, concurrent attempts, and the OIDC decision table.
import { describe, expect, it } from "vitest";
import { decideOidcSignIn, type OidcClaims } from "@/lib/auth/oidc";
import { beginAttempt, finishAttempt, LIMITS, WINDOW_MS, type Attempt } from "@/lib/auth/throttle";
import { createUser, deleteUser, setRole } from "@/lib/auth/users";
import { useTestDb } from "../support/testDb";

const db = useTestDb("signin-rules");

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const MIN = 60_000;

async function fail(email: string, address: string, at: number): Promise<Attempt> {
  const a = await beginAttempt(db(), { email, address }, at);
  if ("refused" in a) throw new Error(`refused at ${at - T0} ms: ${JSON.stringify(a)}`);
  await finishAttempt(db(), a, false);
  return a;
}

describe("throttle", () => {
  it("blocks an account for the rest of the window after 5 failures, then lets one more attempt through", async () => {
    const email = "window@example.com";
    for (let i = 0; i < LIMITS.account; i++) await fail(email, `198.51.100.${i}`, T0 + i * MIN);
    const blocked = await beginAttempt(db(), { email: "  WINDOW@example.com ", address: "198.51.100.99" }, T0 + 5 * MIN);
    // the first failure (T0) leaves the window at T0 + 15 min: 10 minutes from now
    expect(blocked).toEqual({ refused: true, by: "account", retryAfterSeconds: 600 });
    // refused attempts are not recorded: they do not push the end of the block further
    const later = await beginAttempt(db(), { email, address: "198.51.100.99" }, T0 + WINDOW_MS - 1000);
    expect(later).toEqual({ refused: true, by: "account", retryAfterSeconds: 1 });
    const after = await beginAttempt(db(), { email, address: "198.51.100.99" }, T0 + WINDOW_MS + 1);
    expect("refused" in after).toBe(false);
    await finishAttempt(db(), after as Attempt, false);
    // five failures in the last 15 minutes again (T0+1min … T0+4min, and now): blocked until T0+1min+15min
    const again = await beginAttempt(db(), { email, address: "198.51.100.99" }, T0 + WINDOW_MS + 2);
    expect(again).toMatchObject({ refused: true, by: "account" });
    expect((again as { retryAfterSeconds: number }).retryAfterSeconds).toBe(60);
  });

  it("a success clears the account's count but not the address's", async () => {
    const email = "clear@example.com";
    const address = "192.0.2.10";
    for (let i = 0; i < 4; i++) await fail(email, address, T0 + i);
    const ok = await beginAttempt(db(), { email, address }, T0 + 10);
    await finishAttempt(db(), ok as Attempt, true);
    for (let i = 0; i < 4; i++) await fail(email, address, T0 + 20 + i);
    // 8 failures from the address (below 20), 4 for the account since the success
    const fifth = await beginAttempt(db(), { email, address }, T0 + 30);
    expect("refused" in fifth).toBe(false);
    await finishAttempt(db(), fifth as Attempt, false);
    expect(await beginAttempt(db(), { email, address }, T0 + 31)).toMatchObject({ refused: true, by: "account" });
    for (let i = 0; i < 11; i++) await fail(`other-${i}@example.com`, address, T0 + 40 + i);
    // 20 failures from the address now: another account is refused there, not elsewhere
    expect(await beginAttempt(db(), { email: "fresh@example.com", address }, T0 + 60)).toMatchObject({ refused: true, by: "address" });
    expect("refused" in (await beginAttempt(db(), { email: "fresh@example.com", address: "192.0.2.11" }, T0 + 60))).toBe(false);
  });

  it("counts the addresses of one IPv6 /64 together: a client cannot take a fresh address for each attempt", async () => {
    for (let i = 0; i < 20; i++) await fail(`v6-${i}@example.com`, `2001:db8:7:7::${(i + 1).toString(16)}`, T0 + i);
    expect(await beginAttempt(db(), { email: "v6-fresh@example.com", address: "2001:db8:7:7:abcd::1" }, T0 + 30)).toMatchObject({ refused: true, by: "address" });
    expect("refused" in (await beginAttempt(db(), { email: "v6-fresh@example.com", address: "2001:db8:7:8::1" }, T0 + 31))).toBe(false);
  });

  it("lets at most the limit through when attempts arrive at once", async () => {
    const email = "burst@example.com";
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => beginAttempt(db(), { email, address: `10.1.0.${i}` }, T0 + 2 * WINDOW_MS)));
    const admitted = results.filter((r) => !("refused" in r));
    expect(admitted.length).toBeLessThanOrEqual(LIMITS.account);
    for (const a of admitted) await finishAttempt(db(), a as Attempt, false);
    expect(await beginAttempt(db(), { email, address: "10.1.0.99" }, T0 + 2 * WINDOW_MS + 1)).toMatchObject(
      admitted.length === LIMITS.account ? { refused: true } : {},
    );
  });
});

describe("OIDC decision", () => {
  const env: Record<string, string> = { SIGHTDESK_OIDC_ALLOWED_DOMAINS: "example.com,@Corp.Test", SIGHTDESK_OIDC_DEFAULT_ROLE: "responder" };
  const decide = (claims: OidcClaims, e = env) => decideOidcSignIn(db(), claims, e);

  it("needs a subject, an email, email_verified === true and an allowed domain", async () => {
    expect(await decide({ email: "a@example.com", email_verified: true })).toEqual({ ok: false, reason: "no-subject" });
    expect(await decide({ sub: "s0", email_verified: true })).toEqual({ ok: false, reason: "no-email" });
    for (const email_verified of [false, "true", 1, undefined, null]) {
      expect(await decide({ sub: "s1", email: "a@example.com", email_verified })).toEqual({ ok: false, reason: "email-not-verified" });
    }
    expect(await decide({ sub: "s1", email: "a@evil.com", email_verified: true })).toEqual({ ok: false, reason: "domain-not-allowed" });
    expect(await decide({ sub: "s1", email: "a@x.example.com", email_verified: true })).toEqual({ ok: false, reason: "domain-not-allowed" });
    expect(await decide({ sub: "s1", email: "a@example.com.evil.com", email_verified: true })).toEqual({ ok: false, reason: "domain-not-allowed" });
    expect(await db().user.count({ where: { oidcSubject: { not: null } } })).toBe(0);
    // no list: every domain
    const anyDomain = await decide({ sub: "s-any", email: "a@anywhere.org", email_verified: true }, {});
    expect(anyDomain).toMatchObject({ ok: true, outcome: "created", user: { role: "viewer", oidcSubject: "s-any" } });
  });

  it("creates, then recognizes by subject; links a password user by email once", async () => {
    const created = await decide({ sub: "s2", email: "New@Corp.test", email_verified: true, name: "N" });
    expect(created).toMatchObject({ ok: true, outcome: "created", user: { email: "new@corp.test", role: "responder", oidcSubject: "s2" } });
    expect(await decide({ sub: "s2", email: "renamed@corp.test", email_verified: true })).toMatchObject({ ok: true, outcome: "signed-in", user: { email: "new@corp.test" } });

    const pw = await createUser(db(), { email: "pw@example.com", role: "admin", password: "password-123" });
    expect(await decide({ sub: "s3", email: "pw@example.com", email_verified: false })).toEqual({ ok: false, reason: "email-not-verified" });
    expect(await decide({ sub: "s3", email: "PW@example.com", email_verified: true })).toMatchObject({ ok: true, outcome: "linked", user: { id: pw.id, role: "admin", oidcSubject: "s3" } });
    expect(await decide({ sub: "s4", email: "pw@example.com", email_verified: true })).toEqual({ ok: false, reason: "linked-to-another-subject" });
    expect(await decide({ sub: "s3", email: "pw@example.com", email_verified: true })).toMatchObject({ ok: true, outcome: "signed-in", user: { id: pw.id } });
  });

  it("does not re-create a removed user until an admin adds the email again", async () => {
    const first = await decide({ sub: "s5", email: "gone@example.com", email_verified: true });
    expect(first.ok).toBe(true);
    await deleteUser(db(), (first as { user: { id: string } }).user.id);
    expect(await decide({ sub: "s5", email: "gone@example.com", email_verified: true })).toEqual({ ok: false, reason: "removed" });
    expect(await decide({ sub: "s5", email: "alias@example.com", email_verified: true })).toEqual({ ok: false, reason: "removed" });
    expect(await decide({ sub: "s6", email: "gone@example.com", email_verified: true })).toEqual({ ok: false, reason: "removed" });
    expect(await db().user.findUnique({ where: { email: "gone@example.com" } })).toBeNull();

    // a removed password user is not created by single sign-on either
    const pw = await createUser(db(), { email: "pw-gone@example.com", role: "viewer", password: "password-123" });
    await deleteUser(db(), pw.id);
    expect(await decide({ sub: "s7", email: "pw-gone@example.com", email_verified: true })).toEqual({ ok: false, reason: "removed" });

    const readded = await createUser(db(), { email: "GONE@example.com", role: "viewer", password: "password-123" });
    expect(await decide({ sub: "s5", email: "gone@example.com", email_verified: true })).toMatchObject({ ok: true, outcome: "linked", user: { id: readded.id } });
    expect(await db().removedUser.count({ where: { OR: [{ email: "gone@example.com" }, { oidcSubject: "s5" }] } })).toBe(0);
  });
});

describe("the last admin, with several processes", () => {
  it("is kept when every admin is demoted or deleted at once (each change in its own transaction)", async () => {
    await createUser(db(), { email: "admin-x@example.com", role: "admin", password: "password-123" });
    await createUser(db(), { email: "admin-y@example.com", role: "admin", password: "password-123" });
    const admins = await db().user.findMany({ where: { role: "admin" } });
    expect(admins.length).toBeGreaterThanOrEqual(2);
    const changes = await Promise.allSettled(
      admins.map((a, i) => db().$transaction((tx) => (i % 2 ? deleteUser(tx, a.id) : setRole(tx, a.id, "viewer")))),
    );
    // before, each counted the others as admins still, and all went through
    expect(await db().user.count({ where: { role: "admin" } })).toBe(1);
    expect(changes.filter((c) => c.status === "rejected").map((c) => String((c as PromiseRejectedResult).reason.message))).toEqual([expect.stringMatching(/The last admin cannot be (demoted|deleted)/)]);
  });
});
