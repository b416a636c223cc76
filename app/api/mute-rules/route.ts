import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/snoozes";
import { handle } from "@/lib/api/route";
import { createMuteRule, listMuteRules } from "@/lib/triage/mute";

export const GET = handle(c.listMuteRules, ({ db }) => listMuteRules(db));

export const POST = handle(c.createMuteRule, ({ db, body, actor }) => createMuteRule(db, body, actorName(actor)));
