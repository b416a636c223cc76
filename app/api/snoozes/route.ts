import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/snoozes";
import { handle } from "@/lib/api/route";
import { listSnoozes, snoozeFingerprint } from "@/lib/triage/snooze";

export const GET = handle(c.listSnoozes, ({ db, query }) => listSnoozes(db, { active: query.active ?? true, fingerprint: query.fingerprint, limit: query.limit ?? 200 }));

export const POST = handle(c.snoozeGroup, ({ db, body, actor }) => {
  const { fingerprint, ...conditions } = body;
  return snoozeFingerprint(db, fingerprint, { ...conditions, actor: actorName(actor) });
});
