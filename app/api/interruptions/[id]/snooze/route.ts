import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/snoozes";
import { interruptionRecord } from "@/lib/wire/records";
import { handle } from "@/lib/api/route";
import { withRegressed } from "@/lib/db/queries/interruptions";
import { snoozeOne } from "@/lib/triage/snooze";

export const POST = handle(c.snoozeInterruption, async ({ db, params, actor, body }) =>
  interruptionRecord((await withRegressed(db, [await snoozeOne(db, params.id, { ...body, actor: actorName(actor) })]))[0]),
);
