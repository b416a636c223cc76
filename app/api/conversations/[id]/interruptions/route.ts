import * as c from "@/lib/api/contracts/interruptions";
import { interruptionRecord } from "@/lib/api/records";
import { handle } from "@/lib/api/route";
import { interruptionsOf } from "@/lib/db/queries/interruptions";

export const GET = handle(c.conversationInterruptions, async ({ db, params }) =>
  (await interruptionsOf(db, { conversationId: params.id })).map(interruptionRecord),
);
