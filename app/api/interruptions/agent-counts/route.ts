import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { agentCounts } from "@/lib/db/queries/interruptions";

export const GET = handle(c.agentCounts, ({ db, query, actor }) => agentCounts(db, resolveMe(query, actor)));
