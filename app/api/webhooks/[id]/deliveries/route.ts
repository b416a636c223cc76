import * as c from "@/lib/api/contracts/webhooks";
import { handle } from "@/lib/api/route";
import { listDeliveries } from "@/lib/alerts/webhooks";

export const GET = handle(c.listDeliveries, ({ db, params, query }) => listDeliveries(db, params.id, query.limit ?? 50));
