import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { statsUnresolved } from "@/lib/db/queries/interruptions";

export const GET = handle(c.interruptionStats, ({ db, query, actor }) => statsUnresolved(db, resolveMe(query, actor)));
