import { resolveMe } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/interruptions";
import { handle } from "@/lib/api/route";
import { interruptionSeries } from "@/lib/db/queries/timeseries";

export const GET = handle(c.interruptionTimeseries, ({ db, query, actor }) => interruptionSeries(db, { ...query, filter: resolveMe(query.filter, actor) }));
