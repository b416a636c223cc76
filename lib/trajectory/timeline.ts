// Layout of the timeline chart: one lane per conversation, one bar per call positioned by its
// start and end (fractions of the session's span), and evenly spaced time ticks.
import { callDurationMs, callEndNs, callStartNs, diffMs, formatOffset } from "./ns";
import { severityWeight } from "./severity";
import type { Trajectory } from "./tree";

export type TimelineLane = { key: string; label: string; conversationId: string | null; callCount: number };

export type TimelineBar = {
  callId: string;
  lane: number;
  /** fraction of the span where the call starts, 0..1 */
  left: number;
  /** fraction of the span the call lasts, 0..1 (0 for an instant or an unfinished call) */
  width: number;
  startMs: number;
  durationMs: number | null;
  severity: string | null;
  failed: boolean;
  /** the call never ended (no end time, no duration) */
  open: boolean;
};

export type TimelineTick = { at: number; ms: number; label: string };

export type TimelineLayout = {
  startNs: bigint | null;
  spanMs: number;
  lanes: TimelineLane[];
  bars: TimelineBar[];
  ticks: TimelineTick[];
};

const STEPS_MS = [
  10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000,
  1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 172_800_000, 604_800_000,
];

/** A "nice" tick step giving at most about `target` ticks over `spanMs`. */
export function tickStep(spanMs: number, target = 6): number {
  if (!(spanMs > 0)) return STEPS_MS[6];
  const raw = spanMs / Math.max(1, target);
  return STEPS_MS.find((s) => s >= raw) ?? Math.ceil(raw / 86_400_000) * 86_400_000;
}

export function timeTicks(spanMs: number, target = 6): TimelineTick[] {
  const step = tickStep(spanMs, target);
  const ticks: TimelineTick[] = [];
  const span = spanMs > 0 ? spanMs : 1;
  for (let ms = 0; ms <= span + 1e-9; ms += step) ticks.push({ at: ms / span, ms, label: formatOffset(ms) });
  return ticks;
}

/**
 * The bars in the order to draw them: ordinary ones first, then failed ones, then marked ones by
 * severity, critical last (on top). A bar drawn later covers what it overlaps and takes its
 * clicks: a short critical call under a long ordinary one of its lane must stay visible.
 */
export function paintOrder(bars: readonly TimelineBar[]): TimelineBar[] {
  const rank = (b: TimelineBar) => (b.severity ? 2 + severityWeight(b.severity) : b.failed ? 1 : 0);
  return bars.map((b, i) => ({ b, i, r: rank(b) })).sort((p, q) => p.r - q.r || p.i - q.i).map((p) => p.b);
}

export const isFailedStatus = (status: number | null, error: string | null): boolean =>
  (status !== null && status >= 400) || (!!error && (status === null || status >= 300));

export function timelineLayout(t: Trajectory, opts: { tickTarget?: number; labelLength?: number } = {}): TimelineLayout {
  const start = t.startNs;
  if (start === null || t.endNs === null) return { startNs: null, spanMs: 0, lanes: [], bars: [], ticks: [] };
  const spanMs = Math.max(diffMs(start, t.endNs), 1);
  const labelLength = opts.labelLength ?? 10;
  const lanes: TimelineLane[] = t.conversations.map((c) => ({
    key: c.key,
    label: c.conversationId ? (c.conversationId.length > labelLength ? `${c.conversationId.slice(0, labelLength)}…` : c.conversationId) : "no conversation",
    conversationId: c.conversationId,
    callCount: c.loadedCalls,
  }));
  const laneOf = new Map(t.conversations.map((c, i) => [c.key, i]));
  const bars: TimelineBar[] = t.order.map((n) => {
    const s = callStartNs(n.call);
    const e = callEndNs(n.call);
    const startMs = diffMs(start, s);
    const durationMs = callDurationMs(n.call);
    return {
      callId: n.call.call_id,
      lane: laneOf.get(n.conversationKey) ?? 0,
      left: Math.min(1, Math.max(0, startMs / spanMs)),
      width: Math.min(1, Math.max(0, diffMs(s, e) / spanMs)),
      startMs,
      durationMs,
      severity: n.severity,
      failed: isFailedStatus(n.call.status_code, n.call.error),
      open: n.call.end_ns === null && n.call.duration_ns === null,
    };
  });
  return { startNs: start, spanMs, lanes, bars, ticks: timeTicks(spanMs, opts.tickTarget) };
}
