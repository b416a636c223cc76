// Dashboard users (SPEC §5.3): email + password (scrypt), a role.
import crypto from "node:crypto";
import { ApiError } from "../api/errors";
import type { DbTx } from "../db/client";
import type { User } from "../db/generated/client";
import { nowNs } from "../time";
import { hashPassword, verifyPassword } from "./passwords";
import type { Role } from "./roles";

export const MIN_PASSWORD_LENGTH = 8;

export function userRecord(u: User) {
  return { id: u.id, email: u.email, name: u.name, role: u.role, created_at_ns: u.createdAtNs };
}

const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function createUser(db: DbTx, input: { email: string; name?: string | null; role: Role; password: string }) {
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new ApiError(400, `password: at least ${MIN_PASSWORD_LENGTH} characters`);
  const email = normalizeEmail(input.email);
  if (await db.user.findUnique({ where: { email } })) throw new ApiError(409, `A user with email ${email} exists`);
  const user = await db.user.create({
    data: { id: crypto.randomUUID(), email, name: input.name ?? null, role: input.role, passwordHash: await hashPassword(input.password), createdAtNs: nowNs() },
  });
  return userRecord(user);
}

export async function listUsers(db: DbTx) {
  return (await db.user.findMany({ orderBy: { createdAtNs: "asc" } })).map(userRecord);
}

export async function setRole(db: DbTx, id: string, role: Role) {
  const user = await db.user.findUnique({ where: { id } });
  if (!user) throw new ApiError(404, "User not found");
  if (user.role === "admin" && role !== "admin" && (await db.user.count({ where: { role: "admin" } })) === 1) {
    throw new ApiError(409, "The last admin cannot be demoted");
  }
  return userRecord(await db.user.update({ where: { id }, data: { role } }));
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
  if (password.length < MIN_PASSWORD_LENGTH) throw new ApiError(400, `password: at least ${MIN_PASSWORD_LENGTH} characters`);
  if (!(await db.user.findUnique({ where: { id } }))) throw new ApiError(404, "User not found");
  return userRecord(await db.user.update({ where: { id }, data: { passwordHash: await hashPassword(password) } }));
}

/** Deletes a user (their activity rows keep their name); never the last admin. */
export async function deleteUser(db: DbTx, id: string) {
  const user = await db.user.findUnique({ where: { id } });
  if (!user) throw new ApiError(404, "User not found");
  if (user.role === "admin" && (await db.user.count({ where: { role: "admin" } })) === 1) {
    throw new ApiError(409, "The last admin cannot be deleted");
  }
  await db.user.delete({ where: { id } });
  return userRecord(user);
}
