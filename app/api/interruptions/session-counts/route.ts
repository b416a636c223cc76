import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle, jsonText } from "@/lib/api/route";
import { sessionCountsJson } from "@/lib/db/queries/sessionCounts";

export const GET = handle(c.sessionCounts, async ({ db, query, actor }) =>
  jsonText(await sessionCountsJson(db, resolveMe(query.filter, actor), { limit: query.limit, sort: query.sort })),
);
