import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { interruptionRecord } from "@/lib/wire/records";
import { handle } from "@/lib/api/route";
import { withRegressed } from "@/lib/db/queries/interruptions";
import { applyToOne } from "@/lib/triage/lifecycle";

export const POST = handle(c.acknowledgeInterruption, async ({ db, params, actor, body }) =>
  interruptionRecord((await withRegressed(db, [await applyToOne(db, params.id, { action: "acknowledge", actor: actorName(actor), note: body?.note })]))[0]),
);
