import * as c from "@/lib/api/contracts/webhooks";
import { handle } from "@/lib/api/route";
import { checkDestination } from "@/lib/alerts/destination";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/alerts/webhooks";

export const GET = handle(c.getWebhook, ({ db, params }) => getWebhook(db, params.id));

export const POST = handle(c.updateWebhook, ({ db, params, body }) => updateWebhook(db, params.id, body, { check: checkDestination }));

export const DELETE = handle(c.deleteWebhook, ({ db, params }) => deleteWebhook(db, params.id));
