import * as c from "@/lib/api/contracts/meta";
import { handle, json } from "@/lib/api/route";
import { ping } from "@/lib/db/sql";

export const dynamic = "force-dynamic";

/** Liveness and database reachability; no auth, no data. */
export const GET = handle(c.health, async ({ db }) => {
  try {
    await ping(db);
    return { status: "ok" };
  } catch {
    return json({ status: "unavailable", error: "Database unavailable" }, 503);
  }
});
