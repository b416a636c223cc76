import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { interruptionSeries } from "@/lib/db/queries/timeseries";

export const GET = handle(c.interruptionTimeseries, ({ db, query }) => interruptionSeries(db, query));
