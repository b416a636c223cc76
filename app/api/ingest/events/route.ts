import * as c from "@/lib/api/contracts/ingest";
import { handleBatch } from "@/lib/api/route";
import { ingestEvents } from "@/lib/ingest/storeEvents";

export const POST = handleBatch(c.ingestEvents, ({ db, body }) => ingestEvents(db, body));
