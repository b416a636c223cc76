import * as c from "@/lib/api/contracts/ingest";
import { requestSource, storePrepared } from "@/lib/api/ingest";
import { handleIngest } from "@/lib/api/route";

// `X-SightDesk-Source: proxy` marks exchanges the recording proxy captured; anything else is "http".
export const POST = handleIngest(c.ingestHttp, "http", ({ req, db, body }) => storePrepared(db, body, requestSource(req, ["proxy"], "http")));
