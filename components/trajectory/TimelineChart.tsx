"use client";
import { memo, useEffect, useMemo, useRef, useState } from "react";
import { formatTime } from "@/components/ui/format";
import { formatMs, formatOffset } from "@/lib/trajectory/ns";
import { paintOrder, type TimelineLayout } from "@/lib/trajectory/timeline";
import { SEV_FILL } from "@/components/ui/severity";
import { SEVERITIES } from "@/lib/domain/interruptions";

const LABEL_W = 132;
const LANE_H = 18;
const AXIS_H = 20;
const MAX_LANES_SHOWN = 24;

/** Call durations over time: one lane per conversation, a bar per call from its start to its end. */
export const TimelineChart = memo(function TimelineChart({
  layout,
  selectedCallId,
  onSelect,
}: {
  layout: TimelineLayout;
  selectedCallId: string | null;
  onSelect: (callId: string) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  const [showAll, setShowAll] = useState(false);
  const laneCount = showAll ? layout.lanes.length : Math.min(layout.lanes.length, MAX_LANES_SHOWN);
  const plotW = Math.max(100, width - LABEL_W - 8);
  const height = laneCount * LANE_H + AXIS_H;
  const x = (f: number) => LABEL_W + f * plotW;
  const bars = useMemo(() => paintOrder(layout.bars.filter((b) => b.lane < laneCount)), [layout.bars, laneCount]);
  const selected = selectedCallId ? layout.bars.find((b) => b.callId === selectedCallId) : undefined;

  return (
    <section className="rounded-lg border border-default bg-[var(--bg)] p-3" aria-label="Timeline of call durations">
      <div className="mb-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs">
        <h2 className="text-sm font-semibold">Timeline</h2>
        <span className="text-muted">
          {layout.bars.length.toLocaleString()} calls over {formatMs(layout.spanMs)}
          {layout.startNs !== null && <> · from {formatTime(layout.startNs)}</>}
        </span>
        <span className="ml-auto flex flex-wrap items-center gap-3 text-muted">
          <Legend color="var(--accent)" label="ok" />
          <Legend color="transparent" stroke="#dc2626" label="failed" />
          {SEVERITIES.map((s) => (
            <Legend key={s} color={SEV_FILL[s]} label={s} />
          ))}
        </span>
      </div>
      <div ref={ref} className="w-full overflow-hidden" data-testid="timeline">
        <svg width={width} height={height} role="img" aria-label={`Timeline: ${layout.bars.length} calls in ${layout.lanes.length} conversations`} className="block select-none">
          {layout.lanes.slice(0, laneCount).map((lane, i) => (
            <g key={lane.key}>
              {i % 2 === 1 && <rect x={LABEL_W} y={i * LANE_H} width={plotW} height={LANE_H} fill="var(--bg-subtle)" />}
              <text x={LABEL_W - 6} y={i * LANE_H + LANE_H / 2 + 4} textAnchor="end" fontSize={11} fill="var(--fg-muted)" fontFamily="var(--font-mono)">
                {lane.label}
              </text>
            </g>
          ))}
          {layout.ticks.map((t) => (
            <g key={t.ms}>
              <line x1={x(t.at)} x2={x(t.at)} y1={0} y2={laneCount * LANE_H} stroke="var(--border)" />
              <text x={x(t.at)} y={laneCount * LANE_H + 14} fontSize={10} fill="var(--fg-muted)" textAnchor={t.at > 0.97 ? "end" : t.at < 0.03 ? "start" : "middle"}>
                {t.label}
              </text>
            </g>
          ))}
          {bars.map((b) => {
            const w = Math.max(2, b.width * plotW);
            const fill = b.severity ? SEV_FILL[b.severity] : b.failed ? "transparent" : "var(--accent)";
            return (
              <rect
                key={b.callId}
                data-call-id={b.callId}
                x={Math.min(x(b.left), LABEL_W + plotW - 2)}
                y={b.lane * LANE_H + 3}
                width={w}
                height={LANE_H - 6}
                rx={1.5}
                fill={fill}
                fillOpacity={b.severity ? 0.95 : 0.55}
                stroke={b.failed ? "#dc2626" : "none"}
                strokeWidth={b.failed ? 1.2 : 0}
                strokeDasharray={b.open ? "2 1" : undefined}
                className="cursor-pointer"
                onClick={() => onSelect(b.callId)}
              >
                <title>{`${formatOffset(b.startMs)} · ${b.durationMs === null ? "never ended" : formatMs(b.durationMs)}${b.severity ? ` · ${b.severity}` : ""}${b.failed ? " · failed" : ""}`}</title>
              </rect>
            );
          })}
          {selected && selected.lane < laneCount && (
            <rect
              x={x(selected.left) - 2}
              y={selected.lane * LANE_H + 1}
              width={Math.max(2, selected.width * plotW) + 4}
              height={LANE_H - 2}
              fill="none"
              stroke="var(--fg)"
              strokeWidth={1.5}
              rx={2}
              pointerEvents="none"
            />
          )}
        </svg>
      </div>
      {layout.lanes.length > MAX_LANES_SHOWN && (
        <button type="button" className="mt-1 text-xs accent hover:underline" onClick={() => setShowAll((v) => !v)}>
          {showAll ? "Show fewer conversations" : `Show all ${layout.lanes.length} conversations`}
        </button>
      )}
    </section>
  );
});

function Legend({ color, label, stroke }: { color: string; label: string; stroke?: string }) {
  return (
    <span className="inline-flex items-center gap-1">
      <span className="inline-block h-2.5 w-3.5 rounded-sm" style={{ background: color, border: stroke ? `1.5px solid ${stroke}` : undefined }} />
      {label}
    </span>
  );
}
