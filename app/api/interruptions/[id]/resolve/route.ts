import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { applyToOne } from "@/lib/triage/lifecycle";

export const POST = handle(c.resolveInterruption, async ({ db, params, actor, body }) => {
  await applyToOne(db, params.id, { action: "resolve", actor: actorName(actor), note: body?.note });
  return { status: "resolved" as const };
});
