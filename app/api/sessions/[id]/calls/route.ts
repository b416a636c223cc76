import * as c from "@/lib/api/contracts/sessions";
import { pageLink } from "@/lib/api/pagination";
import { handle, json } from "@/lib/api/route";
import { sessionCalls } from "@/lib/db/queries/sessions";

export const GET = handle(c.sessionCalls, async ({ req, db, params, query }) => {
  const limit = query.limit ?? 500;
  const calls = await sessionCalls(db, { sessionId: params.id, conversationId: query.conversation_id, limit, ...query.after });
  return json(calls, 200, pageLink(req, calls, limit, (last) => `${last.start_ns}.${last.call_id}`, "after"));
});
