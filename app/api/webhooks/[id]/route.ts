import * as c from "@/lib/api/contracts/webhooks";
import { handle } from "@/lib/api/route";
import { deleteWebhook, updateWebhook } from "@/lib/alerts/webhooks";

export const POST = handle(c.updateWebhook, ({ db, params, body }) => updateWebhook(db, params.id, body));

export const DELETE = handle(c.deleteWebhook, ({ db, params }) => deleteWebhook(db, params.id));
