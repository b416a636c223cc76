import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { sessionCounts } from "@/lib/db/queries/interruptions";

export const GET = handle(c.sessionCounts, ({ db, query, actor }) => sessionCounts(db, resolveMe(query, actor)));
