import * as c from "@/lib/api/contracts/spend";
import { handle } from "@/lib/api/route";
import { config } from "@/lib/config/load";
import { sessionSpend } from "@/lib/db/queries/spend";

export const GET = handle(c.sessionSpend, ({ db, params }) => sessionSpend(db, params.id, config().pricing));
