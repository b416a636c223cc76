import * as c from "@/lib/api/contracts/interruptions";
import { interruptionRecord } from "@/lib/api/records";
import { handle } from "@/lib/api/route";
import { interruptionsOf } from "@/lib/db/queries/interruptions";

export const GET = handle(c.sessionInterruptions, async ({ db, params }) =>
  (await interruptionsOf(db, { sessionId: params.id })).map(interruptionRecord),
);
