import { db } from "@/lib/db/client";
import { json } from "@/lib/api/route";

export const dynamic = "force-dynamic";

/** Liveness and database reachability; no auth, no data. */
export async function GET(): Promise<Response> {
  try {
    await db().$queryRawUnsafe("SELECT 1");
    return json({ status: "ok" });
  } catch {
    return json({ status: "unavailable", error: "Database unavailable" }, 503);
  }
}
