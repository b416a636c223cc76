import * as c from "@/lib/api/contracts/webhooks";
import { handle } from "@/lib/api/route";
import { assertOutboundUrl } from "@/lib/config/outbound";
import { deleteWebhook, updateWebhook } from "@/lib/alerts/webhooks";

export const POST = handle(c.updateWebhook, async ({ db, params, body }) => {
  if (body.url !== undefined) await assertOutboundUrl(body.url, "url");
  return updateWebhook(db, params.id, body);
});

export const DELETE = handle(c.deleteWebhook, ({ db, params }) => deleteWebhook(db, params.id));
