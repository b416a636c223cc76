import { actorName, resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { filterQuery } from "@/lib/api/contracts/params";
import { handle } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/api/validation";
import { matchingIds } from "@/lib/db/queries/interruptions";
import { applyToMany } from "@/lib/triage/lifecycle";
import { snoozeMany } from "@/lib/triage/snooze";

export const POST = handle(c.bulkInterruptions, async ({ db, actor, body }) => {
  const ids = body.ids ?? (await matchingIds(db, resolveMe(parseOrThrow(filterQuery, body.filter, "filter."), actor)));
  if (body.action === "snooze") return snoozeMany(db, ids, { ...body.snooze!, actor: actorName(actor) });
  return applyToMany(db, ids, { action: body.action, actor: actorName(actor), assignee: body.assignee, note: body.note });
});
