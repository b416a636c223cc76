import * as c from "@/lib/api/contracts/sessions";
import { handle } from "@/lib/api/route";
import { listAgents } from "@/lib/db/queries/sessions";

export const GET = handle(c.listAgents, ({ db }) => listAgents(db));
