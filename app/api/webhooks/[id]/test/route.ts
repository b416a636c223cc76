import * as c from "@/lib/api/contracts/webhooks";
import { handle } from "@/lib/api/route";
import { sendTest } from "@/lib/alerts/testAlert";

export const POST = handle(c.testWebhook, ({ db, params }) => sendTest(db, params.id));
