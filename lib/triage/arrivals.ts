// Noise control at ingest (SPEC §4), inside the transaction that writes new interruptions: the
// batch's occurrences count toward the snoozes of their fingerprints, a snooze whose condition
// is now met wakes (time, N more occurrences, escalation), and new interruptions of a snoozed
// fingerprint group, or matching an active mute rule, arrive snoozed.
//
// Cost: nothing for a batch without interruptions; otherwise one indexed read of the active
// snoozes (with their mute rules), and only for fingerprints that are snoozed an update of their
// snooze (which also orders this batch after a concurrent wake-up of it) and, for escalation, a
// count on the fingerprint index.
import { marks, type Sql } from "../db/sql";
import { muteMatches, RATE_WINDOW_NS, wakeReason, type MuteMatch } from "../domain/snooze";
import { endSnooze, insertActivity, ratePerHour, statusJson, SYSTEM_ACTOR, toSnooze, type ActivityRow, type SnoozeRow } from "./snoozeStore";
import { groupBy } from "../groupBy";

/** A new interruption about to be written. */
export type Arrival = { id: string; fingerprint: string; agentName: string | null; type: string; severity: string; occurredAtNs: bigint };
/** An existing interruption that absorbed more occurrences (an open dead loop or retry storm): its new total. */
export type Repeat = { id: string; fingerprint: string; occurrences: number };

/** How the new interruptions arrive: the snooze each snoozed one is held by (absent: open). */
export type Admission = Map<string, string>;

const CHUNK = 500;

type Active = SnoozeRow & { rule: (MuteMatch & { expiresAtNs: bigint | null }) | null };

async function activeSnoozes(sql: Sql, fingerprints: string[]): Promise<Active[]> {
  const out: Active[] = [];
  // mute rules are few and match by agent + type too: they come with the first chunk's read
  for (let i = 0; i < fingerprints.length; i += CHUNK) {
    const chunk = fingerprints.slice(i, i + CHUNK);
    const byFingerprint = `"s"."fingerprint" IN (${marks(chunk.length)})`;
    const rows = await sql.all(
      `SELECT "s".*, "m"."id" AS "ruleId", "m"."fingerprint" AS "ruleFingerprint", "m"."agentName" AS "ruleAgent", "m"."type" AS "ruleType", "m"."expiresAtNs" AS "ruleExpiresAtNs"
         FROM "Snooze" AS "s" LEFT JOIN "MuteRule" AS "m" ON "m"."id" = "s"."muteRuleId"
        WHERE "s"."endedAtNs" IS NULL AND (${byFingerprint}${i === 0 ? ` OR "s"."scope" = 'mute'` : ""})`,
      chunk,
    );
    for (const r of rows) {
      const rule =
        r.ruleId === null || r.ruleId === undefined
          ? null
          : { fingerprint: (r.ruleFingerprint as string | null) ?? null, agentName: (r.ruleAgent as string | null) ?? null, type: (r.ruleType as string | null) ?? null, expiresAtNs: r.ruleExpiresAtNs === null || r.ruleExpiresAtNs === undefined ? null : BigInt(r.ruleExpiresAtNs as bigint) };
      out.push({ ...toSnooze(r), rule });
    }
  }
  return out;
}

/** Adds `n` occurrences to an active snooze; null when it ended meanwhile (then it holds nothing new). */
async function count(sql: Sql, s: SnoozeRow, n: number): Promise<SnoozeRow | null> {
  const [row] = await sql.all(`UPDATE "Snooze" SET "occurrences" = "occurrences" + ? WHERE "id" = ? AND "endedAtNs" IS NULL RETURNING *`, [n, s.id]);
  return row ? toSnooze(row) : null;
}

/** Occurrences the repeats added to interruptions of snoozed fingerprints (read before they are written). */
async function addedByRepeats(sql: Sql, repeats: Repeat[]): Promise<Map<string, number>> {
  const added = new Map<string, number>();
  for (let i = 0; i < repeats.length; i += CHUNK) {
    const chunk = repeats.slice(i, i + CHUNK);
    const stored = new Map(
      (await sql.all(`SELECT "id", "occurrences" FROM "Interruption" WHERE "id" IN (${marks(chunk.length)})`, chunk.map((r) => r.id))).map((r) => [String(r.id), Number(r.occurrences)]),
    );
    for (const r of chunk) {
      const n = r.occurrences - (stored.get(r.id) ?? r.occurrences);
      if (n > 0) added.set(r.fingerprint, (added.get(r.fingerprint) ?? 0) + n);
    }
  }
  return added;
}

const recent = (a: Arrival, now: bigint) => a.occurredAtNs > now - RATE_WINDOW_NS && a.occurredAtNs <= now;

/**
 * Decides how `arrivals` arrive and counts them and `repeats` toward the snoozes of their
 * fingerprints, waking those whose condition is met. Writes the snoozes' counters, the wake-ups
 * and the arrivals' activity rows; the caller writes the arrivals with the status it returns.
 * `countedAsRepeats`: the arrivals were counted toward their fingerprints' snoozes already, as
 * repeats of the rows they succeed (a row resolved between a batch's count and its update).
 */
export async function admitArrivals(sql: Sql, arrivals: Arrival[], repeats: Repeat[], now: bigint, countedAsRepeats = false): Promise<Admission> {
  const admission: Admission = new Map();
  if (!arrivals.length && !repeats.length) return admission;
  const fingerprints = [...new Set([...arrivals, ...repeats].map((a) => a.fingerprint))];
  const active = await activeSnoozes(sql, fingerprints);
  if (!active.length) return admission;

  const notes = new Map<string, { action: "snooze" | "mute"; note: string }>();
  const byFingerprint = groupBy(arrivals, (a) => a.fingerprint);
  const snoozedFingerprints = active.filter((s) => s.scope !== "mute");
  const snoozed = new Set(snoozedFingerprints.map((s) => s.fingerprint));
  const repeated = snoozedFingerprints.length ? await addedByRepeats(sql, repeats.filter((r) => snoozed.has(r.fingerprint))) : new Map<string, number>();

  // fingerprint snoozes first (sorted: concurrent batches lock snooze rows in one order)
  for (const s of [...snoozedFingerprints].sort((a, b) => a.id.localeCompare(b.id))) {
    const fp = s.fingerprint!;
    const arrived = byFingerprint.get(fp) ?? [];
    const n = (countedAsRepeats ? 0 : arrived.length) + (repeated.get(fp) ?? 0);
    // arrivals counted already still lock the snooze (and find it ended, if it ended since it
    // was read), as counting does: a wake-up of it then waits for them, and finds them snoozed
    const counted = n > 0 || arrived.length ? await count(sql, s, n) : s;
    if (!counted) continue;
    const perHour = counted.untilEscalates && counted.baselinePerHour !== null && arrived.length
      ? (await ratePerHour(sql, fp, now)) + arrived.filter((a) => recent(a, now)).length
      : undefined;
    const reason = wakeReason(counted, { now, perHour, severities: arrived.map((a) => a.severity) });
    if (reason) {
      await endSnooze(sql, s.id, reason, SYSTEM_ACTOR, now);
      continue;
    }
    if (s.scope !== "fingerprint") continue;
    const note = `arrived snoozed: its fingerprint is snoozed${s.reason ? ` (${s.reason})` : ""}`;
    for (const a of arrived) if (!admission.has(a.id)) {
      admission.set(a.id, s.id);
      notes.set(a.id, { action: "snooze", note });
    }
  }

  // then mute rules, for what no snoozed group took
  const muted = new Map<string, Arrival[]>();
  for (const s of active.filter((a) => a.scope === "mute" && a.rule)) {
    if (s.rule!.expiresAtNs !== null && s.rule!.expiresAtNs <= now) {
      await endSnooze(sql, s.id, "the mute rule expired", SYSTEM_ACTOR, now);
      continue;
    }
    const matched = arrivals.filter((a) => !admission.has(a.id) && ![...muted.values()].some((l) => l.includes(a)) && muteMatches(s.rule!, a));
    if (matched.length) muted.set(s.id, matched);
  }
  for (const [snoozeId, matched] of [...muted].sort(([a], [b]) => a.localeCompare(b))) {
    const s = active.find((a) => a.id === snoozeId)!;
    if (!(await count(sql, s, matched.length))) continue;
    const note = `muted by a rule${s.reason ? `: ${s.reason}` : ""}`;
    for (const a of matched) {
      admission.set(a.id, snoozeId);
      notes.set(a.id, { action: "mute", note });
    }
  }

  const activity: ActivityRow[] = [...notes].map(([id, { action, note }]) => ({
    interruptionId: id, actor: SYSTEM_ACTOR, action, before: null, after: statusJson("snoozed"), note, atNs: now,
  }));
  await insertActivity(sql, activity);
  return admission;
}

type Admitted = { status: string; snoozeId: string | null };

/** `rows` with the status they arrive in, when any arrives snoozed (else as they are: open by default). */
export function asAdmitted<R extends { id: string }>(rows: R[], admission: Admission): (R | (R & Admitted))[] {
  if (!admission.size) return rows;
  return rows.map((r) => {
    const held = admission.get(r.id);
    return { ...r, status: held ? "snoozed" : "open", snoozeId: held ?? null };
  });
}

/** One new interruption (an event's, a sweep's) as it arrives. */
export async function admitOne<R extends Arrival>(sql: Sql, row: R, now: bigint): Promise<R | (R & Admitted)> {
  return asAdmitted([row], await admitArrivals(sql, [row], [], now))[0];
}
