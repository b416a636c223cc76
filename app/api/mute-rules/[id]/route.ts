import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/snoozes";
import { handle } from "@/lib/api/route";
import { deleteMuteRule } from "@/lib/triage/mute";

export const DELETE = handle(c.deleteMuteRule, ({ db, params, actor }) => deleteMuteRule(db, params.id, actorName(actor)));
