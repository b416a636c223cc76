"use client";
import Link from "next/link";
import type { SeverityCounts } from "@/components/api/types";
import { formatCount } from "@/components/ui/numbers";
import { SEVERITY_COLOR } from "@/components/ui/severity";
import { SEVERITIES } from "@/lib/domain/interruptions";
import { inboxHref, type Range } from "./range";

const card =
  "group relative flex flex-col gap-1 overflow-hidden rounded-lg border border-default bg-[var(--bg)] px-4 py-3 outline-none transition-colors hover:bg-subtle focus-visible:ring-2 focus-visible:ring-[var(--accent)]";

/** Unresolved interruptions: the total and one card per severity, each opening the inbox. */
export function SeverityCards({ counts, range, loading }: { counts: { total: number; by_severity: SeverityCounts } | undefined; range: Range; loading: boolean }) {
  const value = (n: number | undefined) => (n === undefined ? (loading ? "…" : "—") : formatCount(n));
  return (
    <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5" data-testid="severity-cards">
      <Link href={inboxHref({}, range)} className={card} data-testid="overview-count-total" aria-label={`${counts?.total ?? 0} unresolved in total, open the inbox`}>
        <span className="text-xs font-medium uppercase tracking-wide text-muted">Unresolved</span>
        <span data-testid="count-value" className="text-3xl font-semibold tabular-nums leading-tight">
          {value(counts?.total)}
        </span>
        <span className="text-xs text-muted">all severities</span>
      </Link>
      {SEVERITIES.map((s) => {
        const n = counts?.by_severity[s];
        const share = counts && counts.total > 0 && n !== undefined ? Math.round((n / counts.total) * 100) : null;
        return (
          <Link
            key={s}
            href={inboxHref({ severity: s }, range)}
            className={card}
            data-testid={`overview-count-${s}`}
            aria-label={`${n ?? 0} unresolved ${s}, open the inbox filtered to ${s}`}
          >
            <span aria-hidden="true" className="absolute inset-y-0 left-0 w-1" style={{ background: SEVERITY_COLOR[s] }} />
            <span className="flex items-center gap-1.5 text-xs font-medium uppercase tracking-wide">
              <span aria-hidden="true" className="inline-block size-2 rounded-full" style={{ background: SEVERITY_COLOR[s] }} />
              <span className={n ? "" : "text-muted"}>{s}</span>
            </span>
            <span data-testid="count-value" className={`text-3xl font-semibold tabular-nums leading-tight ${n ? "" : "text-muted"}`}>
              {value(n)}
            </span>
            <span className="text-xs text-muted">{share === null ? "\u00a0" : `${share}% of unresolved`}</span>
          </Link>
        );
      })}
    </div>
  );
}
