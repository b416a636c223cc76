// Mute rules (SPEC §4): new interruptions matching a fingerprint, or an agent and a type, arrive
// snoozed (lib/triage/arrivals.ts), held by the rule's own snooze. The rule's expiry is that
// snooze's time, so the sweep wakes what it muted when it expires; removing the rule wakes it too.
import crypto from "node:crypto";
import type { Db } from "../db/client";
import type { MuteRule } from "../db/generated/client";
import { marks, readSql, transaction } from "../db/sql";
import { invalid, notFound } from "../domain/errors";
import { notToCome, nowNs } from "../domain/time";
import { insertSnooze, wakeRest } from "./snoozeStore";

export type MuteRuleInput = {
  fingerprint: string | null;
  agentName: string | null;
  type: string | null;
  expiresAtNs: bigint | null;
  reason: string | null;
};

type Counts = { snoozeId: string | null; muted: number; snoozed: number };

export function muteRuleRecord(r: MuteRule, c: Counts, now: bigint) {
  return {
    id: r.id,
    fingerprint: r.fingerprint,
    agent_name: r.agentName,
    interruption_type: r.type,
    reason: r.reason,
    expires_at_ns: r.expiresAtNs,
    active: r.expiresAtNs === null || r.expiresAtNs > now,
    created_by: r.createdBy,
    created_at_ns: r.createdAtNs,
    snooze_id: c.snoozeId,
    muted: c.muted,
    snoozed: c.snoozed,
  };
}

export type MuteRuleRecord = ReturnType<typeof muteRuleRecord>;

/** The rules' snoozes: how many interruptions each muted in all, and holds now. */
async function countsOf(db: Db, ruleIds: string[]): Promise<Map<string, Counts>> {
  const out = new Map<string, Counts>();
  if (!ruleIds.length) return out;
  const sql = readSql(db);
  const rows = await sql.all(
    `SELECT "s"."muteRuleId", "s"."id", "s"."occurrences", (SELECT COUNT(*) FROM "Interruption" AS "i" WHERE "i"."snoozeId" = "s"."id") AS "held"
       FROM "Snooze" AS "s" WHERE "s"."muteRuleId" IN (${marks(ruleIds.length)})`,
    ruleIds,
  );
  for (const r of rows) out.set(String(r.muteRuleId), { snoozeId: String(r.id), muted: Number(r.occurrences), snoozed: Number(r.held) });
  return out;
}

const none: Counts = { snoozeId: null, muted: 0, snoozed: 0 };

export async function createMuteRule(db: Db, input: MuteRuleInput, actor: string): Promise<MuteRuleRecord> {
  const byFingerprint = input.fingerprint !== null;
  if (byFingerprint === (input.agentName !== null || input.type !== null)) throw invalid("fingerprint: give a fingerprint, or an agent_name and an interruption_type");
  if (!byFingerprint && (input.agentName === null || input.type === null)) throw invalid(`${input.agentName === null ? "agent_name" : "interruption_type"}: required with the other`);
  const now = nowNs();
  const why = input.expiresAtNs === null ? null : notToCome(input.expiresAtNs, now);
  if (why) throw invalid(`expires_at: ${why}`);
  const rule = await transaction(db, async (sql, tx) => {
    const created = await tx.muteRule.create({
      data: { id: crypto.randomUUID(), fingerprint: input.fingerprint, agentName: input.agentName, type: input.type, reason: input.reason, expiresAtNs: input.expiresAtNs, createdBy: actor, createdAtNs: now },
    });
    await insertSnooze(sql, { scope: "mute", fingerprint: null, muteRuleId: created.id, untilNs: input.expiresAtNs, untilOccurrences: null, untilEscalates: false, reason: input.reason, actor }, now);
    return created;
  });
  return muteRuleRecord(rule, (await countsOf(db, [rule.id])).get(rule.id) ?? none, now);
}

/** Every rule, newest first (expired ones too, until removed). */
export async function listMuteRules(db: Db): Promise<MuteRuleRecord[]> {
  const rules = await db.muteRule.findMany({ orderBy: [{ createdAtNs: "desc" }, { id: "desc" }] });
  const counts = await countsOf(db, rules.map((r) => r.id));
  const now = nowNs();
  return rules.map((r) => muteRuleRecord(r, counts.get(r.id) ?? none, now));
}

/** Removes a rule; what it still holds wakes, with an activity row naming who removed it. */
export async function deleteMuteRule(db: Db, id: string, actor: string): Promise<MuteRuleRecord> {
  const rule = await db.muteRule.findUnique({ where: { id } });
  if (!rule) throw notFound("Mute rule not found");
  const before = (await countsOf(db, [id])).get(id) ?? none;
  const now = nowNs();
  const reason = `the mute rule was removed by ${actor}`;
  // the rule and its snooze end together (nothing new is muted by it from then on); what the
  // snooze holds wakes in chunks after — a process stopped between them leaves the rest to the
  // sweep, which wakes what an ended snooze still holds
  const ended = await transaction(db, async (sql) => {
    await sql.run(`DELETE FROM "MuteRule" WHERE "id" = ?`, [id]);
    const rows = await sql.all(`UPDATE "Snooze" SET "endedAtNs" = ?, "endReason" = ? WHERE "muteRuleId" = ? AND "endedAtNs" IS NULL RETURNING "id"`, [now, reason, id]);
    return rows.map((r) => String(r.id));
  });
  for (const snoozeId of ended) await wakeRest(db, snoozeId, reason, actor, now);
  return muteRuleRecord(rule, { ...before, snoozed: 0 }, now);
}
