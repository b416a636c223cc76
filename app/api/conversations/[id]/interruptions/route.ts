import * as c from "@/lib/api/contracts/interruptions";
import { interruptionRecord } from "@/lib/wire/records";
import { handle } from "@/lib/api/route";
import { interruptionsOf, withRegressed } from "@/lib/db/queries/interruptions";

export const GET = handle(c.conversationInterruptions, async ({ db, params }) =>
  (await withRegressed(db, await interruptionsOf(db, { conversationId: params.id }))).map(interruptionRecord),
);
