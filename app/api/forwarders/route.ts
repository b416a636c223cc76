import * as c from "@/lib/api/contracts/forwarders";
import { handle } from "@/lib/api/route";
import { assertOutboundUrl } from "@/lib/config/outbound";
import { listForwarders, registerForwarder } from "@/lib/deadloop/forwarders";

export const GET = handle(c.listForwarders, ({ db }) => listForwarders(db));
export const POST = handle(c.registerForwarder, async ({ db, body, actor }) => {
  await assertOutboundUrl(body.url, "url");
  return registerForwarder(db, body, actor);
});
