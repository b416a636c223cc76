// Snooze and mute (SPEC §4): the wake-up decision (pure), and the ingest hook and the sweep step
// on a real database (SQLite, or PostgreSQL with TEST_DATABASE_URL) with a clock the test
// controls — the cases the server tests cannot reach: a more severe arrival, repeats folded into
// an existing interruption, an expired rule met by ingest before the sweep, leftovers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDefaults } from "@/lib/config/load";
import { createDb, type Db } from "@/lib/db/client";
import { transaction } from "@/lib/db/sql";
import { describeConditions, muteMatches, wakeReason, type SnoozeState } from "@/lib/domain/snooze";
import { buildInterruption } from "@/lib/ingest/interruptions";
import { admitArrivals, type Arrival } from "@/lib/triage/arrivals";
import { createMuteRule, deleteMuteRule } from "@/lib/triage/mute";
import { snoozeFingerprint, snoozeMany } from "@/lib/triage/snooze";
import { wakeDueSnoozes } from "@/lib/triage/wake";
import { createTestDatabase } from "../support/database";

const SEC = 1_000_000_000n;
const HOUR = 3600n * SEC;
const NOW = BigInt(Date.now()) * 1_000_000n;

const state = (over: Partial<SnoozeState> = {}): SnoozeState => ({
  untilNs: null, untilOccurrences: null, untilEscalates: false, occurrences: 0, baselinePerHour: null, baselineSeverity: null, ...over,
});

describe("wakeReason", () => {
  it("wakes at the time, after N more occurrences, or on escalation; not before", () => {
    expect(wakeReason(state({ untilNs: 10n }), { now: 9n })).toBeNull();
    expect(wakeReason(state({ untilNs: 10n }), { now: 10n })).toBe("the snooze time is up");
    expect(wakeReason(state({ untilOccurrences: 3, occurrences: 2 }), { now: 0n })).toBeNull();
    expect(wakeReason(state({ untilOccurrences: 3, occurrences: 3 }), { now: 0n })).toBe("3 more occurrences since snoozed (waking after 3)");
    const escalating = state({ untilEscalates: true, baselinePerHour: 4, baselineSeverity: "medium" });
    expect(wakeReason(escalating, { now: 0n, perHour: 11, severities: ["medium", "low"] })).toBeNull();
    expect(wakeReason(escalating, { now: 0n, perHour: 12 })).toBe("escalated: 12 in the last hour, 3× the 4 per hour when snoozed");
    expect(wakeReason(escalating, { now: 0n, severities: ["high", "critical"] })).toBe("escalated: a critical interruption arrived (snoozed at medium severity)");
    // without until_escalates, neither a higher rate nor a worse severity wakes it
    expect(wakeReason(state({ untilNs: 10n, baselinePerHour: 1, baselineSeverity: "low" }), { now: 0n, perHour: 100, severities: ["critical"] })).toBeNull();
  });

  it("says the conditions in words", () => {
    expect(describeConditions({ untilNs: 1_800_000_000n * SEC, untilOccurrences: 1, untilEscalates: true })).toBe(
      "snoozed until 2027-01-15T08:00:00Z, or until 1 more occurrence, or until it escalates",
    );
  });
});

describe("muteMatches", () => {
  const i = { fingerprint: "f1", agentName: "a", type: "rate_limit" };
  it("matches a fingerprint, or an agent and a type together", () => {
    expect(muteMatches({ fingerprint: "f1", agentName: null, type: null }, i)).toBe(true);
    expect(muteMatches({ fingerprint: "f2", agentName: null, type: null }, i)).toBe(false);
    expect(muteMatches({ fingerprint: null, agentName: "a", type: "rate_limit" }, i)).toBe(true);
    expect(muteMatches({ fingerprint: null, agentName: "a", type: "auth_error" }, i)).toBe(false);
    expect(muteMatches({ fingerprint: null, agentName: "a", type: null }, i)).toBe(false);
  });
});

describe("on a database", () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase("snooze");
    drop = database.drop;
    db = createDb(database.url);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await drop?.();
  });

  const cfg = configDefaults().detection;
  let seq = 0;
  /** Stores an interruption of `agent` (its fingerprint follows type + agent). */
  async function stored(agent: string, type: "rate_limit" | "auth_error" = "rate_limit", severity?: string) {
    const row = buildInterruption(`i-${agent}-${++seq}`, type, { status_code: 429 }, NOW - SEC, { agentName: agent, model: "m" }, cfg);
    return db.interruption.create({ data: { ...row, severity: severity ?? row.severity } });
  }
  const arrival = (like: { fingerprint: string; agentName: string | null; type: string }, over: Partial<Arrival> = {}): Arrival => ({
    id: `new-${++seq}`, fingerprint: like.fingerprint, agentName: like.agentName, type: like.type, severity: "medium", occurredAtNs: NOW, ...over,
  });
  const admit = (arrivals: Arrival[], repeats: { id: string; fingerprint: string; occurrences: number }[] = [], now = NOW) =>
    transaction(db, (sql) => admitArrivals(sql, arrivals, repeats, now));
  const lastActivity = async (id: string) => (await db.interruptionActivity.findMany({ where: { interruptionId: id }, orderBy: { id: "desc" }, take: 1 }))[0];

  it("wakes a group snoozed 'until it escalates' when a more severe interruption of it arrives", async () => {
    const held = await stored("esc", "rate_limit", "medium");
    await snoozeFingerprint(db, held.fingerprint, { untilNs: null, untilOccurrences: null, untilEscalates: true, reason: null, actor: "alice" });
    const same = await admit([arrival(held, { severity: "medium" })]);
    expect(same.size).toBe(1); // held by the group
    const worse = arrival(held, { severity: "high" });
    expect((await admit([worse])).has(worse.id)).toBe(false); // arrives open: the snooze woke
    expect((await db.interruption.findUnique({ where: { id: held.id } }))!.status).toBe("open");
    expect((await lastActivity(held.id))!.note).toBe("escalated: a high interruption arrived (snoozed at medium severity)");
  });

  it("counts occurrences folded into an existing interruption (a repeat) toward 'N more'", async () => {
    const held = await stored("rep");
    await snoozeMany(db, [held.id], { untilNs: null, untilOccurrences: 3, untilEscalates: false, reason: null, actor: "alice" });
    await admit([], [{ id: held.id, fingerprint: held.fingerprint, occurrences: held.occurrences + 2 }]);
    expect((await db.interruption.findUnique({ where: { id: held.id } }))!.status).toBe("snoozed");
    await db.interruption.update({ where: { id: held.id }, data: { occurrences: held.occurrences + 2 } });
    await admit([], [{ id: held.id, fingerprint: held.fingerprint, occurrences: held.occurrences + 3 }]);
    expect((await db.interruption.findUnique({ where: { id: held.id } }))!.status).toBe("open");
  });

  it("wakes at ingest what is past its time, before the sweep does", async () => {
    const held = await stored("late");
    await snoozeMany(db, [held.id], { untilNs: NOW + HOUR, untilOccurrences: null, untilEscalates: false, reason: null, actor: "alice" });
    await admit([arrival(held)], [], NOW + 2n * HOUR);
    expect((await db.interruption.findUnique({ where: { id: held.id } }))!.status).toBe("open");
    expect((await lastActivity(held.id))!.note).toBe("the snooze time is up");
  });

  it("an expired mute rule mutes nothing, and ingest ends it", async () => {
    const rule = await createMuteRule(db, { fingerprint: null, agentName: "exp", type: "auth_error", expiresAtNs: NOW + HOUR, reason: null }, "alice");
    const like = { fingerprint: "whatever", agentName: "exp", type: "auth_error" };
    expect((await admit([arrival(like)], [], NOW)).size).toBe(1);
    expect((await admit([arrival(like)], [], NOW + 2n * HOUR)).size).toBe(0);
    expect((await db.snooze.findUnique({ where: { id: rule.snooze_id! } }))).toMatchObject({ endReason: "the mute rule expired", occurrences: 1 });
  });

  it("a group snooze takes an arrival before a mute rule that also matches it", async () => {
    const held = await stored("both");
    await createMuteRule(db, { fingerprint: held.fingerprint, agentName: null, type: null, expiresAtNs: null, reason: "muted" }, "alice");
    const group = await snoozeFingerprint(db, held.fingerprint, { untilNs: NOW + HOUR, untilOccurrences: null, untilEscalates: false, reason: null, actor: "alice" });
    const a = arrival(held);
    expect((await admit([a])).get(a.id)).toBe(group.id);
  });

  it("the sweep wakes what an ended snooze still holds (a wake-up cut short)", async () => {
    const held = await stored("left");
    await snoozeMany(db, [held.id], { untilNs: NOW + HOUR, untilOccurrences: null, untilEscalates: false, reason: null, actor: "alice" });
    const { snoozeId } = (await db.interruption.findUnique({ where: { id: held.id } }))!;
    await db.snooze.update({ where: { id: snoozeId! }, data: { endedAtNs: NOW, endReason: "woken by bob" } });
    await wakeDueSnoozes(db, NOW + SEC);
    expect((await db.interruption.findUnique({ where: { id: held.id } }))).toMatchObject({ status: "open", snoozeId: null });
    expect((await lastActivity(held.id))).toMatchObject({ action: "wake", actor: "system", note: "woken by bob" });
  });

  /**
   * `db` whose transactions run `before` (given the attempt's number) first, and whose first
   * attempt fails after its work: as a deadlock victim's does (`fails`), or with another error
   * (`failsWith`: the connection lost before the commit).
   */
  function withTransactions(o: { before?: (attempt: number) => Promise<void>; fails?: boolean; failsWith?: string }): Db {
    let attempt = 0;
    return new Proxy(db, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop);
        if (prop !== "$transaction") return typeof value === "function" ? value.bind(target) : value;
        return async (fn: (tx: unknown) => Promise<unknown>, options: unknown) => {
          const n = ++attempt;
          await o.before?.(n);
          return target.$transaction(async (tx) => {
            const out = await fn(tx);
            if (o.fails && n === 1) throw new Error("deadlock detected");
            if (o.failsWith && n === 1) throw new Error(o.failsWith);
            return out;
          }, options as { timeout: number });
        };
      },
    });
  }

  it("a chunk run again after a deadlock puts its interruptions under a snooze that exists", async () => {
    const [a, b] = [await stored("retry"), await stored("retry")];
    const result = await snoozeMany(withTransactions({ fails: true }), [a.id, b.id], { untilNs: NOW + HOUR, untilOccurrences: null, untilEscalates: false, reason: null, actor: "alice" });
    expect(result).toEqual({ matched: 2, changed: 2 }); // before, matched counted the failed attempt too
    const rows = await db.interruption.findMany({ where: { id: { in: [a.id, b.id] } } });
    expect(rows.map((r) => r.status)).toEqual(["snoozed", "snoozed"]);
    // before, the retry reused the snooze the failed attempt had created and rolled back: gone
    expect(await db.snooze.count({ where: { id: { in: rows.map((r) => r.snoozeId!) } } })).toBe(1);
  });

  it("a selection's later chunks are not put under its snooze once that ended (an escalation is not hidden again)", async () => {
    const first = await stored("ended");
    const rest = Array.from({ length: 500 }, (_, k) => ({ ...first, id: `${first.id}-more-${k}` }));
    await db.interruption.createMany({ data: rest });
    // between the two chunks the snooze ends (ingest saw it escalate)
    const ending = withTransactions({ before: async (n) => void (n === 2 && (await db.snooze.updateMany({ where: { fingerprint: first.fingerprint, endedAtNs: null }, data: { endedAtNs: NOW, endReason: "escalated" } }))) });
    const result = await snoozeMany(ending, [first.id, ...rest.map((r) => r.id)], { untilNs: null, untilOccurrences: null, untilEscalates: true, reason: null, actor: "alice" });
    expect(result).toEqual({ matched: 501, changed: 500 });
    expect(await db.interruption.count({ where: { fingerprint: first.fingerprint, status: "open" } })).toBe(1);
  });

  it("two group snoozes of one fingerprint at once: one is left, holding the whole group", async () => {
    const held = [await stored("twice"), await stored("twice"), await stored("twice")];
    const input = { untilNs: NOW + HOUR, untilOccurrences: null, untilEscalates: false, reason: null, actor: "alice" };
    await Promise.all([snoozeFingerprint(db, held[0].fingerprint, input), snoozeFingerprint(db, held[0].fingerprint, { ...input, actor: "bob" })]);
    const active = await db.snooze.findMany({ where: { fingerprint: held[0].fingerprint, scope: "fingerprint", endedAtNs: null } });
    expect(active).toHaveLength(1);
    const rows = await db.interruption.findMany({ where: { id: { in: held.map((h) => h.id) } } });
    expect(rows.map((r) => [r.status, r.snoozeId])).toEqual(held.map(() => ["snoozed", active[0].id]));
  });

  it("removing a mute rule ends its snooze with it, or neither when it fails", async () => {
    const held = await stored("unmute");
    const rule = await createMuteRule(db, { fingerprint: held.fingerprint, agentName: null, type: null, expiresAtNs: null, reason: null }, "alice");
    const muted = arrival(held);
    expect((await admit([muted])).get(muted.id)).toBe(rule.snooze_id);
    await db.interruption.create({ data: { ...held, id: muted.id, status: "snoozed", snoozeId: rule.snooze_id } });
    // the connection is lost before the removal commits: before, the rule was gone (deleted on its
    // own) and its snooze went on holding what it held, for good
    const failing = withTransactions({ failsWith: "connection lost" });
    await expect(deleteMuteRule(failing, rule.id, "bob")).rejects.toThrow("connection lost");
    expect(await db.muteRule.findUnique({ where: { id: rule.id } })).not.toBeNull();
    expect((await db.snooze.findUniqueOrThrow({ where: { id: rule.snooze_id! } })).endedAtNs).toBeNull();
    // tried again: both end, and what it held wakes
    await deleteMuteRule(db, rule.id, "bob");
    expect(await db.muteRule.findUnique({ where: { id: rule.id } })).toBeNull();
    expect(await db.snooze.findUniqueOrThrow({ where: { id: rule.snooze_id! } })).toMatchObject({ endReason: "the mute rule was removed by bob" });
    expect(await db.interruption.findUniqueOrThrow({ where: { id: muted.id } })).toMatchObject({ status: "open", snoozeId: null });
  });

  it("the sweep ends a snooze of chosen interruptions that retention deleted", async () => {
    const held = await stored("gone");
    await snoozeMany(db, [held.id], { untilNs: null, untilOccurrences: 5, untilEscalates: false, reason: null, actor: "alice" });
    const { snoozeId } = (await db.interruption.findUnique({ where: { id: held.id } }))!;
    await db.interruption.delete({ where: { id: held.id } });
    await wakeDueSnoozes(db, NOW);
    expect(await db.snooze.findUnique({ where: { id: snoozeId! } })).toMatchObject({ endedAtNs: NOW, endReason: "nothing left snoozed" });
  });
});
