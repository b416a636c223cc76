"use client";
import { format } from "date-fns";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatCount } from "@/components/ui/numbers";
import { Panel, PanelMessage, SkeletonRows } from "@/components/ui/Panel";
import { SEVERITY_COLOR } from "@/components/ui/severity";
import { SEVERITIES } from "@/lib/domain/interruptions";
import { NS_PER_MS } from "@/lib/domain/time";
import { chartPoints, seriesTotals, type ChartPoint } from "./derive";
import type { SeriesResponse } from "./queries";
import { bucketInboxHref, inboxHref, RANGE_INFO, type Range } from "./range";

const HEIGHT = 240;

function ChartTooltip({ point, bucketMs }: { point: ChartPoint | undefined; bucketMs: number }) {
  if (!point) return null;
  return (
    <div className="rounded-md border border-default bg-[var(--bg)] px-3 py-2 text-xs shadow-lg">
      <div className="mb-1 font-medium">
        {format(point.t, "MMM d, HH:mm")} – {format(point.t + bucketMs, "HH:mm")}
      </div>
      <table>
        <tbody>
          {SEVERITIES.map((s) => (
            <tr key={s} className={point[s] ? "" : "text-muted"}>
              <td className="pr-3">
                <span aria-hidden="true" className="mr-1.5 inline-block size-2 rounded-sm align-middle" style={{ background: SEVERITY_COLOR[s] }} />
                {s}
              </td>
              <td className="text-right tabular-nums">{point[s]}</td>
            </tr>
          ))}
          <tr className="border-t border-default font-medium">
            <td className="pr-3 pt-0.5">total</td>
            <td className="pt-0.5 text-right tabular-nums">{point.total}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/** Interruptions over time (all statuses), stacked by severity; bars and legend open the inbox. */
export function SeverityChart({
  series,
  frame,
  range,
  loading,
  error,
}: {
  series: SeriesResponse | undefined;
  frame: { startNs: string; endNs: string; buckets: number };
  range: Range;
  loading: boolean;
  error: Error | null;
}) {
  const router = useRouter();
  const info = RANGE_INFO[range];
  const points = series ? chartPoints(series) : [];
  const totals = seriesTotals(points);
  const total = SEVERITIES.reduce((n, s) => n + totals[s], 0);
  const bucketMs = series ? Number(BigInt(series.bucket_ns) / NS_PER_MS) : 0;
  const summary = `Interruptions per ${info.bucketLabel} over ${info.long}: ${total} in the chart, ${SEVERITIES.map((s) => `${totals[s]} ${s}`).join(", ")}.`;

  return (
    <Panel
      testId="overview-chart"
      data={{ "data-start-ns": frame.startNs, "data-end-ns": frame.endNs, "data-buckets": String(frame.buckets) }}
      title="Interruptions over time"
      subtitle={`Per ${info.bucketLabel}, stacked by severity · every status`}
      action={
        <Link href={inboxHref({}, range)} className="accent hover:underline">
          Open inbox →
        </Link>
      }
    >
      {error && !series ? (
        <PanelMessage tone="error">Could not load the time series: {error.message}</PanelMessage>
      ) : loading && !series ? (
        <div style={{ height: HEIGHT + 40 }}>
          <SkeletonRows rows={6} />
        </div>
      ) : (
        <div className="px-2 pb-3 pt-4">
          <div role="img" aria-label={summary} style={{ height: HEIGHT }} className="relative">
            <ResponsiveContainer width="100%" height={HEIGHT}>
              <BarChart data={points} accessibilityLayer={false} margin={{ top: 4, right: 12, bottom: 0, left: 0 }} barCategoryGap="18%">
                <CartesianGrid vertical={false} stroke="var(--border)" />
                <XAxis
                  dataKey="t"
                  tickFormatter={(t: number) => format(t, info.tick)}
                  tick={{ fill: "var(--fg-muted)", fontSize: 11 }}
                  tickLine={false}
                  axisLine={{ stroke: "var(--border)" }}
                  minTickGap={24}
                />
                <YAxis allowDecimals={false} width={36} tick={{ fill: "var(--fg-muted)", fontSize: 11 }} tickLine={false} axisLine={false} />
                <Tooltip
                  cursor={{ fill: "var(--bg-subtle)" }}
                  isAnimationActive={false}
                  content={(p) => <ChartTooltip point={p.payload?.[0]?.payload as ChartPoint | undefined} bucketMs={bucketMs} />}
                />
                {SEVERITIES.map((s) => (
                  <Bar
                    key={s}
                    dataKey={s}
                    name={s}
                    stackId="severity"
                    fill={SEVERITY_COLOR[s]}
                    isAnimationActive={false}
                    cursor="pointer"
                    onClick={(bar: { payload?: ChartPoint }) => router.push(bar.payload ? bucketInboxHref(s, bar.payload.t, bucketMs) : inboxHref({ severity: s }, range))}
                  />
                ))}
              </BarChart>
            </ResponsiveContainer>
            {total === 0 && (
              <p className="pointer-events-none absolute inset-0 flex items-center justify-center text-sm text-muted">No interruptions in {info.long}.</p>
            )}
          </div>
          <ul data-testid="chart-legend" className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-1 px-2 text-xs">
            {SEVERITIES.map((s) => (
              <li key={s}>
                <Link href={inboxHref({ severity: s }, range)} className="inline-flex items-center gap-1.5 rounded px-1 py-0.5 hover:bg-subtle" data-severity={s}>
                  <span aria-hidden="true" className="inline-block size-2.5 rounded-sm" style={{ background: SEVERITY_COLOR[s] }} />
                  <span>{s}</span>
                  <span className="tabular-nums text-muted">{formatCount(totals[s])}</span>
                </Link>
              </li>
            ))}
            <li className="ml-auto text-muted">
              <span className="tabular-nums">{formatCount(total)}</span> in the chart
            </li>
          </ul>
        </div>
      )}
    </Panel>
  );
}
