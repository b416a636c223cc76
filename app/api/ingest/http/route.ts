import { ingestHttpBatch } from "@/lib/api/ingest";
import { route } from "@/lib/api/route";

export const POST = route({
  scope: "ingest",
  handler: async ({ db, body }) => ingestHttpBatch(db, await body()),
});
