import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/snoozes";
import { handle } from "@/lib/api/route";
import { wakeSnooze } from "@/lib/triage/snooze";

export const POST = handle(c.wakeSnooze, ({ db, params, actor }) => wakeSnooze(db, params.id, actorName(actor)));
