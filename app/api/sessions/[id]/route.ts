import * as c from "@/lib/api/contracts/sessions";
import { handle } from "@/lib/api/route";
import { sessionDetail } from "@/lib/db/queries/sessions";

export const GET = handle(c.getSession, ({ db, params }) => sessionDetail(db, params.id));
