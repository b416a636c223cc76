// Exact nanosecond arithmetic for the trajectory view. Values arrive as digit strings (long)
// or numbers (short); comparisons and differences are done on bigints, and only relative
// offsets (milliseconds) are turned into floating-point numbers for layout.
import type { CallSummary, NsValue } from "./types";

/** A nanosecond value as a bigint, or null when absent or malformed. */
export function toBigNs(v: NsValue | bigint | null | undefined): bigint | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return Number.isFinite(v) ? BigInt(Math.trunc(v)) : null;
  return /^-?\d+$/.test(v) ? BigInt(v) : null;
}

/** Milliseconds between two nanosecond instants (b − a), as a float. */
export function diffMs(a: bigint, b: bigint): number {
  return Number(b - a) / 1e6;
}

export function callStartNs(c: Pick<CallSummary, "start_ns">): bigint {
  return toBigNs(c.start_ns) ?? 0n;
}

/** The end of a call: its end, else start + duration, else its start (it never ended). */
export function callEndNs(c: Pick<CallSummary, "start_ns" | "end_ns" | "duration_ns">): bigint {
  const start = callStartNs(c);
  const end = toBigNs(c.end_ns);
  if (end !== null && end >= start) return end;
  const d = toBigNs(c.duration_ns);
  return d !== null && d >= 0n ? start + d : start;
}

/** The call's duration in ms, or null when it never ended (or says it ended before it started, as callEndNs judges). */
export function callDurationMs(c: Pick<CallSummary, "start_ns" | "end_ns" | "duration_ns">): number | null {
  const d = toBigNs(c.duration_ns);
  if (d !== null && d >= 0n) return Number(d) / 1e6;
  const end = toBigNs(c.end_ns);
  const start = callStartNs(c);
  return end === null || end < start ? null : diffMs(start, end);
}

/** Time order of calls, as the API pages them: start, then call id. */
export function compareCalls(a: Pick<CallSummary, "start_ns" | "call_id">, b: Pick<CallSummary, "start_ns" | "call_id">): number {
  const x = callStartNs(a);
  const y = callStartNs(b);
  if (x !== y) return x < y ? -1 : 1;
  return a.call_id < b.call_id ? -1 : a.call_id > b.call_id ? 1 : 0;
}

/** The `after` cursor that continues a page of calls after `c` (`<start_ns>.<call_id>`). */
export function afterCursor(c: Pick<CallSummary, "start_ns" | "call_id">): string {
  return `${callStartNs(c)}.${c.call_id}`;
}

/** A short relative offset: "+0s", "+1.5s", "+2m 05s", "+1h 02m". */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "−" : "+";
  const abs = Math.abs(ms);
  // each unit is chosen by the value as rounded for it: 59,999 ms is "1m 00s", not "60.0s"
  if (Math.round(abs) < 1000) return `${sign}${Math.round(abs)}ms`;
  const tenths = Math.round(abs / 100);
  if (tenths < 600) return `${sign}${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)}s`;
  const totalS = Math.round(abs / 1000);
  if (totalS < 3600) return `${sign}${Math.floor(totalS / 60)}m ${String(totalS % 60).padStart(2, "0")}s`;
  const totalM = Math.round(abs / 60_000);
  if (totalM < 1440) return `${sign}${Math.floor(totalM / 60)}h ${String(totalM % 60).padStart(2, "0")}m`;
  return `${sign}${Math.floor(totalM / 1440)}d ${Math.floor((totalM % 1440) / 60)}h`;
}

/** A duration in ms for people: "850 ms", "4.2 s", "2 min 05 s". */
export function formatMs(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "—";
  // each unit is chosen by the value as rounded for it: 999.6 ms is "1.0 s", not "1000 ms"
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}
