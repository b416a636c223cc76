import * as c from "@/lib/api/contracts/interruptions";
import { nextLinkHeader } from "@/lib/api/pagination";
import { interruptionRecord } from "@/lib/api/records";
import { handle, json } from "@/lib/api/route";
import { encodeCursor, listInterruptions } from "@/lib/db/queries/interruptions";

export const GET = handle(c.listInterruptions, async ({ req, db, query }) => {
  const rows = await listInterruptions(db, query.filter, query.limit, query.cursor);
  const headers = rows.length === query.limit ? nextLinkHeader(req, encodeCursor(rows[rows.length - 1])) : {};
  return json(rows.map(interruptionRecord), 200, headers);
});
