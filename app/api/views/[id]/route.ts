import * as c from "@/lib/api/contracts/views";
import { handle } from "@/lib/api/route";
import { viewCaller } from "@/lib/api/viewCaller";
import { deleteView, getView, updateView } from "@/lib/db/queries/views";
import { nowNs } from "@/lib/domain/time";

export const GET = handle(c.getView, ({ db, actor, params }) => getView(db, params.id, viewCaller(actor), nowNs()));

export const POST = handle(c.updateView, ({ db, actor, params, body }) => updateView(db, params.id, body, viewCaller(actor), nowNs()));

export const DELETE = handle(c.deleteView, ({ db, actor, params }) => deleteView(db, params.id, viewCaller(actor)));
