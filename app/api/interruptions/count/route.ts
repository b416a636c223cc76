import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { countUnresolved } from "@/lib/db/queries/interruptions";

export const GET = handle(c.countInterruptions, ({ db, query, actor }) => countUnresolved(db, resolveMe(query, actor)));
