import * as c from "@/lib/api/contracts/sessions";
import { handle } from "@/lib/api/route";
import { callDetail } from "@/lib/db/queries/sessions";

export const GET = handle(c.getCall, ({ db, params }) => callDetail(db, params.id));
