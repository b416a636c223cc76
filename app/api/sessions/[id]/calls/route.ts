import * as c from "@/lib/api/contracts/sessions";
import { nextLinkHeader } from "@/lib/api/pagination";
import { handle, json } from "@/lib/api/route";
import { sessionCalls } from "@/lib/db/queries/sessions";

export const GET = handle(c.sessionCalls, async ({ req, db, params, query }) => {
  const limit = query.limit ?? 500;
  const calls = await sessionCalls(db, { sessionId: params.id, conversationId: query.conversation_id, limit, ...query.after });
  const last = calls.at(-1);
  return json(calls, 200, last && calls.length === limit ? nextLinkHeader(req, `${last.start_ns}.${last.call_id}`, "after") : {});
});
