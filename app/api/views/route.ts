import * as c from "@/lib/api/contracts/views";
import { handle } from "@/lib/api/route";
import { viewCaller } from "@/lib/api/viewCaller";
import { createView, listViews } from "@/lib/db/queries/views";
import { nowNs } from "@/lib/domain/time";

export const GET = handle(c.listViews, ({ db, actor }) => listViews(db, viewCaller(actor), nowNs()));

export const POST = handle(c.createView, ({ db, actor, body }) => createView(db, body, viewCaller(actor), nowNs()));
