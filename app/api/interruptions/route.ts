import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { pageLink, windowParams } from "@/lib/api/pagination";
import { interruptionRecord } from "@/lib/wire/records";
import { handle, json } from "@/lib/api/route";
import { encodeCursor, readListPage } from "@/lib/db/queries/interruptions";

export const GET = handle(c.listInterruptions, async ({ req, db, query, actor }) => {
  const { rows, arrivedThroughNs } = await readListPage(db, resolveMe(query.filter, actor), query);
  const headers = pageLink(req, rows, query.limit, (last) => encodeCursor(last, query.sort), "cursor", windowParams(query.filter));
  const arrival: Record<string, string> = arrivedThroughNs === null ? {} : { "x-arrived-through": String(arrivedThroughNs) };
  return json(rows.map(interruptionRecord), 200, { ...headers, ...arrival });
});
