import * as c from "@/lib/api/contracts/ingest";
import { handleBatch } from "@/lib/api/route";
import { ingestCalls } from "@/lib/ingest/storeCalls";

export const POST = handleBatch(c.ingestCalls, ({ db, body }) => ingestCalls(db, body));
