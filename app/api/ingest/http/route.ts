import * as c from "@/lib/api/contracts/ingest";
import { storePrepared } from "@/lib/api/ingest";
import { handleIngest } from "@/lib/api/route";

export const POST = handleIngest(c.ingestHttp, "http", ({ db, body }) => storePrepared(db, body));
