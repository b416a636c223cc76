import * as c from "@/lib/api/contracts/ingest";
import { requestSource, storePrepared } from "@/lib/api/ingest";
import { handleIngest } from "@/lib/api/route";

// `X-SightDesk-Source: import` marks calls an AgentSight import / forwarder sends; anything else is "api".
export const POST = handleIngest(c.ingestCalls, "calls", ({ req, db, body }) => storePrepared(db, body, requestSource(req, ["import"], "api")));
