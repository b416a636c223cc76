// Dashboard users (SPEC §5.3): email + password (scrypt), a role.
import crypto from "node:crypto";
import { conflict, invalid, notFound } from "../domain/errors";
import type { DbTx } from "../db/client";
import type { User } from "../db/generated/client";
import { raced } from "../db/raced";
import { nowNs } from "../domain/time";
import { hashPassword, verifyPassword } from "./passwords";
import { revokeTokensBeyond } from "./apiTokens";
import type { Role } from "./roles";
import { tokenSessionVersion } from "./sessionVersion";

export const MIN_PASSWORD_LENGTH = 8;

export function userRecord(u: User) {
  return { id: u.id, email: u.email, name: u.name, role: u.role, created_at_ns: u.createdAtNs };
}

const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function createUser(db: DbTx, input: { email: string; name?: string | null; role: Role; password: string }) {
  if (input.password.length < MIN_PASSWORD_LENGTH) throw invalid(`password: at least ${MIN_PASSWORD_LENGTH} characters`);
  const email = normalizeEmail(input.email);
  if (await db.user.findUnique({ where: { email } })) throw conflict(`A user with email ${email} exists`);
  const user = await raced(
    db.user.create({
      data: { id: crypto.randomUUID(), email, name: input.name ?? null, role: input.role, passwordHash: await hashPassword(input.password), createdAtNs: nowNs() },
    }),
    { taken: `A user with email ${email} exists` },
  );
  await liftRemoval(db, email);
  return userRecord(user);
}

export async function listUsers(db: DbTx) {
  return (await db.user.findMany({ orderBy: { createdAtNs: "asc" } })).map(userRecord);
}

/**
 * Counts the admins with their rows locked to the end of the transaction (`db` must be one): two
 * processes demoting or deleting the last two admins at once must not both see the other left.
 * A no-op UPDATE locks on both databases (SQLite has one writer anyway).
 */
async function adminCount(db: DbTx): Promise<number> {
  await db.$executeRawUnsafe(`UPDATE "User" SET "role" = "role" WHERE "role" = 'admin'`);
  return db.user.count({ where: { role: "admin" } });
}

/** Changes a user's role; never demotes the last admin. Run it in a transaction. */
export async function setRole(db: DbTx, id: string, role: Role) {
  const user = await db.user.findUnique({ where: { id } });
  if (!user) throw notFound("User not found");
  if (user.role === "admin" && role !== "admin" && (await adminCount(db)) === 1) {
    throw conflict("The last admin cannot be demoted");
  }
  if (user.role === role) return userRecord(user);
  // a new role ends the user's sessions: they sign in again and get the new role's rights
  const changed = await raced(db.user.update({ where: { id }, data: { role, sessionVersion: { increment: 1 } } }), { missing: "User not found" });
  await revokeTokensBeyond(db, user.email, role);
  return userRecord(changed);
}

/** The user with these credentials, or null (same answer for an unknown email and a bad password). */
export async function checkCredentials(db: DbTx, email: string, password: string): Promise<User | null> {
  const user = await db.user.findUnique({ where: { email: normalizeEmail(email) } });
  if (!user) {
    await hashPassword(password); // spend the same time, so timing does not reveal which emails exist
    return null;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : null;
}

/** First start: an admin from SIGHTDESK_ADMIN_EMAIL / SIGHTDESK_ADMIN_PASSWORD when there is no user. */
export async function ensureFirstAdmin(db: DbTx, env = process.env): Promise<string | null> {
  const email = env.SIGHTDESK_ADMIN_EMAIL;
  const password = env.SIGHTDESK_ADMIN_PASSWORD;
  if (!email || !password || (await db.user.count()) > 0) return null;
  await createUser(db, { email, password, role: "admin", name: "Admin" });
  return email;
}

/** A new password for a user (admin reset); the same length rule as createUser. */
export async function setPassword(db: DbTx, id: string, password: string) {
  if (password.length < MIN_PASSWORD_LENGTH) throw invalid(`password: at least ${MIN_PASSWORD_LENGTH} characters`);
  if (!(await db.user.findUnique({ where: { id } }))) throw notFound("User not found");
  // a new password ends every session signed in with the old one
  const data = { passwordHash: await hashPassword(password), sessionVersion: { increment: 1 } };
  return userRecord(await raced(db.user.update({ where: { id }, data }), { missing: "User not found" }));
}

/**
 * Deletes a user (their activity rows keep their name, their API tokens are revoked); never the last admin. Leaves a
 * tombstone so single sign-on does not create the user again (see lib/auth/oidc.ts). Run it in
 * a transaction.
 */
export async function deleteUser(db: DbTx, id: string) {
  const user = await db.user.findUnique({ where: { id } });
  if (!user) throw notFound("User not found");
  if (user.role === "admin" && (await adminCount(db)) === 1) {
    throw conflict("The last admin cannot be deleted");
  }
  await raced(db.user.delete({ where: { id } }), { missing: "User not found" });
  await revokeTokensBeyond(db, user.email, null);
  await db.removedUser.create({ data: { id: crypto.randomUUID(), email: user.email, oidcSubject: user.oidcSubject, removedAtNs: nowNs() } });
  return userRecord(user);
}

/**
 * An admin (re-)adding a user by email lifts the removal of that email, and of the single
 * sign-on subjects that were removed with it.
 */
export async function liftRemoval(db: DbTx, email: string): Promise<void> {
  const removed = await db.removedUser.findMany({ where: { email: normalizeEmail(email) }, select: { oidcSubject: true } });
  if (removed.length === 0) return;
  const subjects = removed.map((r) => r.oidcSubject).filter((s): s is string => s !== null);
  await db.removedUser.deleteMany({ where: { OR: [{ email: normalizeEmail(email) }, ...(subjects.length ? [{ oidcSubject: { in: subjects } }] : [])] } });
}

/**
 * Signing out ends every session of the user, on every device: sessions are stateless cookies,
 * and a copy of the cookie taken before would otherwise stay valid until it expires (12 h). The
 * version moves on only if the cookie's is still current (a second sign-out changes nothing).
 * Returns the user's id (to forget in this process's cache), or null for no user.
 */
export async function endSessions(db: DbTx, token: object | null | undefined): Promise<string | null> {
  const uid = (token as { uid?: unknown } | null | undefined)?.uid;
  if (typeof uid !== "string") return null;
  await db.user.updateMany({ where: { id: uid, sessionVersion: tokenSessionVersion(token) }, data: { sessionVersion: { increment: 1 } } });
  return uid;
}
