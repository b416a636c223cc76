import { userActorName } from "@/lib/auth/actor";
import { forgetTokensMadeBy, forgetUser } from "@/lib/auth/identity";
import * as c from "@/lib/api/contracts/users";
import { conflict, notFound } from "@/lib/domain/errors";
import { handle } from "@/lib/api/route";
import { deleteUser, setPassword, setRole, userRecord } from "@/lib/auth/users";

export const POST = handle(c.updateUser, async ({ db, body, params }) => {
  const updated = await db.$transaction(async (tx) => {
    if (!(await tx.user.findUnique({ where: { id: params.id } }))) throw notFound("User not found");
    if (body.role !== undefined) await setRole(tx, params.id, body.role);
    if (body.name !== undefined) await tx.user.update({ where: { id: params.id }, data: { name: body.name } });
    if (body.password !== undefined) await setPassword(tx, params.id, body.password);
    return userRecord((await tx.user.findUnique({ where: { id: params.id } }))!);
  });
  // a new role applies to the user's next request (and their tokens'), not after the cache expires
  forgetUser(params.id);
  forgetTokensMadeBy(userActorName(updated.email));
  return updated;
});

export const DELETE = handle(c.deleteUser, async ({ db, params, actor }) => {
  if (actor.kind === "user" && actor.id === params.id) throw conflict("You cannot delete your own account");
  const deleted = await db.$transaction((tx) => deleteUser(tx, params.id));
  forgetUser(params.id);
  forgetTokensMadeBy(userActorName(deleted.email));
  return deleted;
});
