import { ingestCallBatch } from "@/lib/api/ingest";
import { route } from "@/lib/api/route";

export const POST = route({
  scope: "ingest",
  handler: async ({ db, body }) => ingestCallBatch(db, await body()),
});
