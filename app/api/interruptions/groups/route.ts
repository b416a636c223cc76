import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { pageLink, windowParams } from "@/lib/api/pagination";
import { handle, json } from "@/lib/api/route";
import { encodeGroupCursor, interruptionGroups } from "@/lib/db/queries/groups";

export const GET = handle(c.interruptionGroups, async ({ req, db, query, actor }) => {
  const groups = await interruptionGroups(db, { ...query, filter: resolveMe(query.filter, actor) });
  return json(groups, 200, pageLink(req, groups, query.limit, encodeGroupCursor, "cursor", windowParams(query.filter)));
});
