import { getServerSession } from "next-auth";
import { db } from "../db/client";
import { authOptions } from "./nextauth";
import { scopesOf } from "./roles";
import { tokenSessionVersion } from "./sessionVersion";

export type CurrentUser = { id: string; email: string; name: string | null; role: string; scopes: string[] };

/** The signed-in user for a server component, or null. */
export async function currentUser(): Promise<CurrentUser | null> {
  const session = (await getServerSession(authOptions())) as { uid?: unknown; sv?: unknown } | null;
  if (typeof session?.uid !== "string") return null;
  const user = await db().user.findUnique({ where: { id: session.uid } });
  // removed, or a password or role change since this cookie was issued: signed out
  if (!user || user.sessionVersion !== tokenSessionVersion(session)) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role, scopes: scopesOf(user.role) };
}
