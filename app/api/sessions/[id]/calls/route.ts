import * as c from "@/lib/api/contracts/sessions";
import { handle } from "@/lib/api/route";
import { sessionCalls } from "@/lib/db/queries/sessions";

export const GET = handle(c.sessionCalls, ({ db, params, query }) => {
  const dot = query.after?.indexOf(".") ?? -1;
  const afterNs = query.after === undefined ? undefined : query.after.slice(0, dot < 0 ? undefined : dot);
  const afterId = dot < 0 ? undefined : query.after!.slice(dot + 1);
  return sessionCalls(db, {
    sessionId: params.id,
    conversationId: query.conversation_id,
    limit: query.limit ?? 500,
    afterNs: afterNs === undefined ? undefined : BigInt(afterNs),
    afterId,
  });
});
