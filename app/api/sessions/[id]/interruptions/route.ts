import * as c from "@/lib/api/contracts/interruptions";
import { pageLink } from "@/lib/api/pagination";
import { interruptionRecord } from "@/lib/wire/records";
import { handle, json } from "@/lib/api/route";
import { interruptionsOf, timeCursorOf } from "@/lib/db/queries/interruptions";

export const GET = handle(c.sessionInterruptions, async ({ req, db, params, query }) => {
  const rows = await interruptionsOf(db, { sessionId: params.id }, query);
  return json(rows.map(interruptionRecord), 200, pageLink(req, rows, query.limit, timeCursorOf));
});
