import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/webhooks";
import { handle } from "@/lib/api/route";
import { assertOutboundUrl } from "@/lib/config/outbound";
import { createWebhook, listWebhooks } from "@/lib/alerts/webhooks";

export const GET = handle(c.listWebhooks, ({ db }) => listWebhooks(db));

export const POST = handle(c.createWebhook, async ({ db, body, actor }) => {
  await assertOutboundUrl(body.url, "url");
  return createWebhook(db, body, actorName(actor));
});
