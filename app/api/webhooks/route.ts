import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/webhooks";
import { handle } from "@/lib/api/route";
import { checkDestination } from "@/lib/alerts/destination";
import { createWebhook, listWebhooks } from "@/lib/alerts/webhooks";

export const GET = handle(c.listWebhooks, ({ db }) => listWebhooks(db));

export const POST = handle(c.createWebhook, ({ db, body, actor }) => createWebhook(db, body, actorName(actor), { check: checkDestination }));
