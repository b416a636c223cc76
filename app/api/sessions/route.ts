import * as c from "@/lib/api/contracts/sessions";
import { pageLink } from "@/lib/api/pagination";
import { handle, json } from "@/lib/api/route";
import { encodeSessionCursor, listSessions } from "@/lib/db/queries/sessions";

export const GET = handle(c.listSessions, async ({ req, db, query }) => {
  const limit = query.limit ?? 100;
  const rows = await listSessions(db, {
    ids: query.session_id, agentNames: query.agent_name, withOpen: query.with_open, startNs: query.start_ns, endNs: query.end_ns, limit, cursor: query.cursor,
  });
  return json(rows, 200, pageLink(req, rows, limit, encodeSessionCursor));
});
