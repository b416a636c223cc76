import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { interruptionGroups } from "@/lib/db/queries/groups";

export const GET = handle(c.interruptionGroups, ({ db, query, actor }) => interruptionGroups(db, { ...query, filter: resolveMe(query.filter, actor) }));
