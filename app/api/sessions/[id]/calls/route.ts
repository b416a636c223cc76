import * as c from "@/lib/api/contracts/sessions";
import { handle } from "@/lib/api/route";
import { sessionCalls } from "@/lib/db/queries/sessions";

export const GET = handle(c.sessionCalls, ({ db, params, query }) =>
  sessionCalls(db, { sessionId: params.id, conversationId: query.conversation_id, limit: query.limit ?? 500, ...query.after }),
);
