// The stored generic body of an alert (AlertDelivery.payload) as the channel renderers read it:
// parsed with `*_ns` values exact (bigint), every field read defensively — a renderer never
// throws on an odd payload. And the one-line headline every channel starts from.
import { parseJsonExact } from "../../wire/json";
import { describeWindow } from "../rate";

export type StoredInterruption = {
  interruption_id?: unknown;
  interruption_type?: unknown;
  severity?: unknown;
  agent_name?: unknown;
  session_id?: unknown;
  occurrences?: unknown;
  occurred_at_ns?: unknown;
  fingerprint?: unknown;
} & Record<string, unknown>;

export type StoredRule = { id?: unknown; name?: unknown; threshold?: unknown; window_secs?: unknown; min_severity?: unknown; types?: unknown; agents?: unknown };

export type StoredPayload = {
  event: string;
  url: string;
  interruption: StoredInterruption | null;
  /** interruption.resolved: the fingerprint that has no unresolved interruption left */
  fingerprint: string | null;
  rule: StoredRule | null;
  count: number | null;
  window: { start_ns?: unknown; end_ns?: unknown } | null;
  by_severity: Record<string, number>;
  by_type: Record<string, number>;
  by_agent: Record<string, number>;
  firing: { number?: unknown; since_ns?: unknown; resolved_at_ns?: unknown } | null;
  /** the whole body, for channels that pass details on */
  raw: Record<string, unknown>;
};

/** `*_ns` digit strings (as parseJsonExact leaves them) back to bigints, so they are written back exactly. */
function nsToBigInt(v: unknown, key = ""): unknown {
  if (typeof v === "string" && key.endsWith("_ns") && /^-?\d+$/.test(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map((x) => nsToBigInt(x));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, nsToBigInt(x, k)]));
  return v;
}

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const counts = (v: unknown): Record<string, number> =>
  Object.fromEntries(Object.entries(obj(v) ?? {}).filter((e): e is [string, number] => typeof e[1] === "number"));

export function readPayload(text: string): StoredPayload {
  let raw: Record<string, unknown> = {};
  try {
    raw = obj(nsToBigInt(parseJsonExact(text))) ?? {};
  } catch {
    /* an unreadable body renders as an empty alert */
  }
  return {
    event: str(raw.event, "alert"),
    url: str(raw.url, ""),
    interruption: obj(raw.interruption) as StoredInterruption | null,
    fingerprint: typeof raw.fingerprint === "string" ? raw.fingerprint : null,
    rule: obj(raw.rule) as StoredRule | null,
    count: typeof raw.count === "number" ? raw.count : null,
    window: obj(raw.window),
    by_severity: counts(raw.by_severity),
    by_type: counts(raw.by_type),
    by_agent: counts(raw.by_agent),
    firing: obj(raw.firing),
    raw,
  };
}

/** A non-empty string, else `fallback`. */
export function str(v: unknown, fallback: string): string {
  return typeof v === "string" && v ? v : fallback;
}

export const num = (v: unknown, fallback: number): number => (typeof v === "number" && Number.isFinite(v) ? v : fallback);

/** Milliseconds since the epoch of an ns value (bigint, digits or number), or null. */
export function nsToMs(v: unknown): number | null {
  if (typeof v === "bigint") return Number(v / 1_000_000n);
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(BigInt(v) / 1_000_000n);
  if (typeof v === "number" && Number.isFinite(v)) return Math.floor(v / 1e6);
  return null;
}

/** A rate rule's alert (or its test sample): it names the rule and counts, not one interruption. */
export const isRateAlert = (p: StoredPayload) => p.rule !== null;

const VERB: Record<string, string> = {
  "interruption.created": "new",
  "interruption.regressed": "regressed",
  "interruption.resolved": "resolved",
  "webhook.test": "test alert",
};

/** "12 interruptions in 10 min (at least 5)" */
export function rateCountLine(p: StoredPayload): string {
  const n = p.count ?? 0;
  const rule = p.rule ?? {};
  return `${n} interruption${n === 1 ? "" : "s"} in ${describeWindow(num(rule.window_secs, 0))} (at least ${num(rule.threshold, 0)})`;
}

/**
 * The alert in one line: "[CRITICAL] agent_crash (new) on Claude", or for a rate rule
 * "[FIRING] on-call: 12 interruptions in 10 min (at least 5)". Untrusted text is left as is:
 * each channel escapes it for its own format.
 */
export function headline(p: StoredPayload): string {
  if (isRateAlert(p)) {
    const state = p.event === "rate.resolved" ? "RESOLVED" : p.event === "webhook.test" ? "TEST" : "FIRING";
    return `[${state}] ${str(p.rule?.name, "rate rule")}: ${rateCountLine(p)}`;
  }
  const i = p.interruption ?? {};
  const severity = str(i.severity, "unknown");
  const type = str(i.interruption_type, "interruption");
  const agent = str(i.agent_name, "unknown agent");
  const verb = VERB[p.event] ?? p.event;
  if (p.event === "interruption.resolved") return `[RESOLVED] ${type} on ${agent}`;
  return `[${severity.toUpperCase()}] ${type} (${verb}) on ${agent}`;
}
