import * as c from "@/lib/api/contracts/sources";
import { handle } from "@/lib/api/route";
import { listSources } from "@/lib/db/queries/sources";

export const GET = handle(c.listSources, ({ db }) => listSources(db));
