import * as c from "@/lib/api/contracts/users";
import { handle } from "@/lib/api/route";
import { createUser, listUsers } from "@/lib/auth/users";

export const GET = handle(c.listUsers, ({ db }) => listUsers(db));

export const POST = handle(c.createUser, ({ db, body }) =>
  createUser(db, { email: body.email, name: body.name ?? null, role: body.role, password: body.password }),
);
