import * as c from "@/lib/api/contracts/spend";
import { handle } from "@/lib/api/route";
import { config } from "@/lib/config/load";
import { spendByAgent } from "@/lib/db/queries/spend";

export const GET = handle(c.spendByAgent, ({ db, query }) => spendByAgent(db, query, config().pricing, config().detection.loop));
