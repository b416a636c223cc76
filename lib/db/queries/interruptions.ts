import type { DbTx } from "../client";

/** A session's interruptions, oldest first. */
export function sessionInterruptions(db: DbTx, sessionId: string, limit = 1000) {
  return db.interruption.findMany({
    where: { sessionId },
    orderBy: [{ occurredAtNs: "asc" }, { id: "asc" }],
    take: limit,
  });
}
