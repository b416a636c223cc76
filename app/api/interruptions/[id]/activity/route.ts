import * as c from "@/lib/api/contracts/interruptions";
import { notFound } from "@/lib/domain/errors";
import { activityRecord } from "@/lib/wire/records";
import { handle } from "@/lib/api/route";
import { getInterruption } from "@/lib/db/queries/interruptions";
import { activityOf } from "@/lib/triage/lifecycle";

export const GET = handle(c.interruptionActivity, async ({ db, params }) => {
  const rows = await activityOf(db, params.id);
  if (!rows.length && !(await getInterruption(db, params.id))) throw notFound("Interruption not found");
  return rows.map(activityRecord);
});
