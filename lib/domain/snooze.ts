// Snooze and mute (SPEC §4, noise control): what wakes a snoozed interruption, decided from what
// was observed, and which new interruptions a mute rule matches. Pure.
import { SEVERITY_WEIGHT, type Severity } from "./interruptions";
import { NS_PER_HOUR } from "./time";

/**
 * What a snooze holds: chosen interruptions (one snooze per fingerprint of the selection), a
 * whole fingerprint group (new interruptions of it arrive snoozed too), or what a mute rule matches.
 */
export const SNOOZE_SCOPES = ["interruptions", "fingerprint", "mute"] as const;
export type SnoozeScope = (typeof SNOOZE_SCOPES)[number];

/** The lengths the dashboard and the CLI offer (in seconds); any other time is "custom". */
export const SNOOZE_PRESETS = { "1h": 3600, "8h": 8 * 3600, "24h": 24 * 3600, "7d": 7 * 24 * 3600 } as const;
export type SnoozePreset = keyof typeof SNOOZE_PRESETS;

/** Escalation: the rate over the last RATE_WINDOW_NS reaching this multiple of the rate when snoozed. */
export const ESCALATION_FACTOR = 3;
export const RATE_WINDOW_NS = NS_PER_HOUR;

/** A snooze ends at the first of its conditions met; at least one is set. */
export type SnoozeConditions = {
  untilNs: bigint | null;
  /** wake after this many more occurrences of the fingerprint */
  untilOccurrences: number | null;
  untilEscalates: boolean;
};

export const hasCondition = (c: SnoozeConditions) => c.untilNs !== null || c.untilOccurrences !== null || c.untilEscalates;

export type SnoozeState = SnoozeConditions & {
  /** occurrences of the fingerprint counted since snoozed */
  occurrences: number;
  /** interruptions of the fingerprint in the hour before it was snoozed (at least 1) */
  baselinePerHour: number | null;
  baselineSeverity: string | null;
};

/** What ingest or the sweep saw: the time, and for the fingerprint what just arrived. */
export type Observation = {
  now: bigint;
  /** interruptions of the fingerprint over the last hour, this batch's included */
  perHour?: number;
  /** severities of the interruptions of the fingerprint that just arrived */
  severities?: readonly string[];
};

const weight = (severity: string | null) => (severity && severity in SEVERITY_WEIGHT ? SEVERITY_WEIGHT[severity as Severity] : 0);

/** Why the snooze ends now (for its activity rows), or null while none of its conditions is met. */
export function wakeReason(s: SnoozeState, o: Observation): string | null {
  if (s.untilNs !== null && o.now >= s.untilNs) return "the snooze time is up";
  if (s.untilOccurrences !== null && s.occurrences >= s.untilOccurrences) {
    return `${s.occurrences} more occurrence${s.occurrences === 1 ? "" : "s"} since snoozed (waking after ${s.untilOccurrences})`;
  }
  if (!s.untilEscalates) return null;
  const worse = (o.severities ?? []).filter((sev) => weight(sev) > weight(s.baselineSeverity)).sort((a, b) => weight(b) - weight(a))[0];
  if (worse) return `escalated: a ${worse} interruption arrived (snoozed at ${s.baselineSeverity ?? "unknown"} severity)`;
  if (o.perHour !== undefined && s.baselinePerHour !== null && o.perHour >= ESCALATION_FACTOR * s.baselinePerHour) {
    return `escalated: ${o.perHour} in the last hour, ${ESCALATION_FACTOR}× the ${s.baselinePerHour} per hour when snoozed`;
  }
  return null;
}

/** The most severe of `severities` (null for none). */
export function worstSeverity(severities: Iterable<string>): string | null {
  let worst: string | null = null;
  for (const s of severities) if (worst === null || weight(s) > weight(worst)) worst = s;
  return worst;
}

/** A mute rule names a fingerprint, or an agent and a type (SPEC §4). */
export type MuteMatch = { fingerprint: string | null; agentName: string | null; type: string | null };

export function muteMatches(rule: MuteMatch, i: { fingerprint: string; agentName: string | null; type: string }): boolean {
  if (rule.fingerprint !== null) return rule.fingerprint === i.fingerprint;
  return rule.agentName !== null && rule.type !== null && rule.agentName === i.agentName && rule.type === i.type;
}

const isoOf = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The conditions in words, for activity rows ("snoozed until 2026-12-02T15:00:00Z, or until it escalates"). */
export function describeConditions(c: SnoozeConditions): string {
  const parts = [
    ...(c.untilNs !== null ? [`until ${isoOf(c.untilNs)}`] : []),
    ...(c.untilOccurrences !== null ? [`until ${c.untilOccurrences} more occurrence${c.untilOccurrences === 1 ? "" : "s"}`] : []),
    ...(c.untilEscalates ? ["until it escalates"] : []),
  ];
  return parts.length ? `snoozed ${parts.join(", or ")}` : "snoozed";
}
