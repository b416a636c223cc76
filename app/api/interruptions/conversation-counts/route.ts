import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { conversationCounts } from "@/lib/db/queries/interruptions";

export const GET = handle(c.conversationCounts, ({ db, query, actor }) => conversationCounts(db, resolveMe(query, actor)));
