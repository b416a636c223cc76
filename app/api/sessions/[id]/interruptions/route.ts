import { interruptionRecord } from "@/lib/api/records";
import { route } from "@/lib/api/route";
import { sessionInterruptions } from "@/lib/db/queries/interruptions";

export const GET = route({
  scope: "read",
  handler: async ({ db, params }) => (await sessionInterruptions(db, params.id)).map(interruptionRecord),
});
