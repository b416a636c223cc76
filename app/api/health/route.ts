import * as c from "@/lib/api/contracts/meta";
import { handle, json } from "@/lib/api/route";

export const dynamic = "force-dynamic";

/** Liveness and database reachability; no auth, no data. */
export const GET = handle(c.health, async ({ db }) => {
  try {
    await db.$queryRawUnsafe("SELECT 1");
    return { status: "ok" };
  } catch {
    return json({ status: "unavailable", error: "Database unavailable" }, 503);
  }
});
