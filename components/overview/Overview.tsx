"use client";
import Link from "next/link";
import { format } from "date-fns";
import { SkeletonRows } from "@/components/ui/Panel";
import { SegmentedControl } from "@/components/ui/SegmentedControl";
import { useIsClient } from "@/components/ui/useIsClient";
import { useAgentCounts, useCounts, useSeries, useSessionsById, useStats, useTopSessions } from "./queries";
import { chartWindow, RANGE_INFO, RANGES, useRange, useWindow } from "./range";
import { SeverityCards } from "./SeverityCards";
import { SeverityChart } from "./SeverityChart";
import { SpendPanel } from "./SpendPanel";
import { TopAgents, TopSessions, TopTypes } from "./TopPanels";

const RANGE_OPTIONS = RANGES.map((r) => ({ value: r, label: RANGE_INFO[r].label, title: RANGE_INFO[r].long }));

/** The overview at `/`: what is broken right now, and where. */
export function Overview() {
  // The window ends "now" in the browser: the server renders only a placeholder.
  return useIsClient() ? <OverviewBody /> : <OverviewPlaceholder />;
}

function OverviewPlaceholder() {
  return (
    <div className="space-y-4" aria-busy="true">
      <h1 className="text-xl font-semibold tracking-tight">Overview</h1>
      <div className="rounded-lg border border-default">
        <SkeletonRows rows={6} />
      </div>
    </div>
  );
}

function OverviewBody() {
  const [range, setRange] = useRange();
  const win = useWindow(range);
  const counts = useCounts(win);
  const stats = useStats(win);
  const topSessions = useTopSessions(win);
  const agentCounts = useAgentCounts(win);
  const chart = chartWindow(win, range);
  const series = useSeries(chart);
  const sessionNames = useSessionsById(topSessions.data?.map((s) => s.session_id));

  const all = [counts, stats, topSessions, agentCounts, series, sessionNames];
  const fetching = all.some((q) => q.isFetching);
  const ready = !fetching && all.every((q) => q.data !== undefined && !q.isPlaceholderData);
  const updatedAt = Math.max(...all.map((q) => q.dataUpdatedAt));

  return (
    <div
      className="space-y-4"
      data-testid="overview"
      data-range={range}
      data-start-ns={win.startNs}
      data-end-ns={win.endNs}
      data-ready={ready ? "true" : "false"}
    >
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Overview</h1>
          <p className="text-sm text-muted">
            Unresolved interruptions in {RANGE_INFO[range].long}.{" "}
            <Link href="/connect" className="font-medium text-[var(--accent)] underline-offset-2 hover:underline" data-testid="connect-link">
              Connect an agent
            </Link>
          </p>
        </div>
        <div className="flex items-center gap-3">
          <span className="text-xs text-muted">
            {fetching ? "Updating…" : updatedAt > 0 ? `Updated ${format(updatedAt, "HH:mm:ss")}` : ""}
          </span>
          <button
            type="button"
            onClick={win.refresh}
            className="rounded-md border border-default px-2.5 py-1 text-xs font-medium hover:bg-subtle focus-visible:outline-2 focus-visible:outline-[var(--accent)]"
          >
            Refresh
          </button>
          <SegmentedControl label="Time range" testId="range-picker" options={RANGE_OPTIONS} value={range} onChange={(r) => void setRange(r)} />
        </div>
      </div>

      <SeverityCards counts={counts.data} range={range} loading={counts.isPending} />
      {counts.error && !counts.data && (
        <p role="status" className="text-sm text-red-600 dark:text-red-400">
          Could not load the counts: {counts.error.message}
        </p>
      )}

      <SeverityChart series={series.data} frame={chart} range={range} loading={series.isPending} error={series.error} />

      <div className="grid gap-4 lg:grid-cols-3">
        <TopTypes stats={stats} range={range} />
        <TopAgents counts={agentCounts} range={range} />
        <TopSessions counts={topSessions} sessions={sessionNames} range={range} />
      </div>
      <SpendPanel win={win} range={range} />
    </div>
  );
}
