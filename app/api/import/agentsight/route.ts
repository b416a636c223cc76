import { importAgentSightUpload } from "@/lib/api/agentsightUpload";
import * as c from "@/lib/api/contracts/import";
import { handle } from "@/lib/api/route";

export const POST = handle(c.importAgentSight, ({ db, body }) => importAgentSightUpload(db, body));
