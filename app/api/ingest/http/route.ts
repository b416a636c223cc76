import * as c from "@/lib/api/contracts/ingest";
import { handleBatch } from "@/lib/api/route";
import { normalizeExchange } from "@/lib/ingest/adapters";
import { ingestCalls } from "@/lib/ingest/storeCalls";

export const POST = handleBatch(c.ingestHttp, ({ db, body }) => ingestCalls(db, body.map(normalizeExchange)));
