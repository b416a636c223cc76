import { ingestEventBatch } from "@/lib/api/ingest";
import { route } from "@/lib/api/route";

export const POST = route({
  scope: "ingest",
  handler: async ({ db, body }) => ingestEventBatch(db, await body()),
});
