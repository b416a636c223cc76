import * as c from "@/lib/api/contracts/spend";
import { handle } from "@/lib/api/route";
import { config } from "@/lib/config/load";
import { callSpend } from "@/lib/db/queries/spend";

export const GET = handle(c.callSpend, ({ db, params }) => callSpend(db, params.id, config().pricing));
