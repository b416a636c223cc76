import * as c from "@/lib/api/contracts/spend";
import { handle } from "@/lib/api/route";
import { config } from "@/lib/config/load";
import { interruptionSpend } from "@/lib/db/queries/spend";

export const GET = handle(c.interruptionSpend, ({ db, params }) => interruptionSpend(db, params.id, config().pricing, config().detection.loop));
