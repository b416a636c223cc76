import * as c from "@/lib/api/contracts/interruptions";
import { notFound } from "@/lib/domain/errors";
import { interruptionRecord } from "@/lib/wire/records";
import { handle } from "@/lib/api/route";
import { getInterruption, withRegressed } from "@/lib/db/queries/interruptions";

export const GET = handle(c.getInterruption, async ({ db, params }) => {
  const row = await getInterruption(db, params.id);
  if (!row) throw notFound("Interruption not found");
  return interruptionRecord((await withRegressed(db, [row]))[0]);
});
