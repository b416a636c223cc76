// Dashboard users (SPEC §5.3): admins list, add, change the role of, reset and delete users.
import { z } from "zod";
import { ROLES } from "../../auth/roles";
import { MIN_PASSWORD_LENGTH } from "../../auth/users";
import { contract } from "../contract";

const tag = "users";

const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(ROLES),
  created_at_ns: z.int(),
});

const email = z.string().trim().max(254).pipe(z.email({ message: "not a valid email address" }));
const name = z.string().trim().max(100).transform((v) => v || null);
const password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, { message: `at least ${MIN_PASSWORD_LENGTH} characters` })
  .max(1024, { message: "at most 1024 characters" });
const role = z.enum(ROLES, { message: `expected one of ${ROLES.join(", ")}` });

export const listUsers = contract({
  method: "GET", path: "/api/users", tag, scope: "admin", response: z.array(userSchema),
  summary: "Dashboard users and their roles (never password hashes), oldest first.",
});
export const createUser = contract({
  method: "POST", path: "/api/users", tag, scope: "admin", status: 201,
  body: z.object({ email, name: name.nullish(), role, password }),
  response: userSchema,
  summary: "Add a user who signs in with email and password (409 when the email exists).",
});
export const updateUser = contract({
  method: "POST", path: "/api/users/{id}", tag, scope: "admin",
  body: z
    .object({ role: role.optional(), name: name.nullish(), password: password.optional() })
    .refine((b) => b.role !== undefined || b.name !== undefined || b.password !== undefined, {
      message: "give at least one of role, name or password",
      path: ["role"],
    }),
  response: userSchema,
  summary: "Change a user's role, name or password (409 when it would leave no admin).",
});
export const deleteUser = contract({
  method: "DELETE", path: "/api/users/{id}", tag, scope: "admin", response: userSchema,
  summary: "Delete a user (409 for the last admin or yourself).",
});
