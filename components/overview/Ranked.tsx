"use client";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import type { SeverityCounts } from "@/components/api/types";
import { formatCount } from "@/components/ui/numbers";
import { SEVERITY_COLOR } from "@/components/ui/severity";
import { SEVERITIES } from "@/lib/domain/interruptions";

/** A bar whose length is `total / max` and whose segments are the severities. */
export function StackedBar({ counts, max }: { counts: SeverityCounts; max: number }) {
  const total = SEVERITIES.reduce((n, s) => n + counts[s], 0);
  const width = max > 0 ? Math.max(2, (total / max) * 100) : 0;
  return (
    <div aria-hidden="true" className="h-1.5 w-full overflow-hidden rounded-full bg-subtle">
      <div className="flex h-full" style={{ width: `${width}%` }}>
        {SEVERITIES.filter((s) => counts[s] > 0).map((s) => (
          <div key={s} style={{ flexGrow: counts[s], background: SEVERITY_COLOR[s] }} />
        ))}
      </div>
    </div>
  );
}

export type RankedItem = {
  key: string;
  href: string;
  /** what the row is (rendered as text by the caller) */
  label: ReactNode;
  /** a second, muted line */
  detail?: ReactNode;
  /** marks after the label (badges) */
  marks?: ReactNode;
  count: number;
  by_severity: SeverityCounts;
  /** an accessible description of the count */
  countLabel: string;
};

/** A ranked list of links with a proportional severity bar; the first `initial` rows, then "show all". */
export function RankedList({ items, initial = 8, testId, noun }: { items: RankedItem[]; initial?: number; testId: string; noun: string }) {
  const [all, setAll] = useState(false);
  const shown = all ? items : items.slice(0, initial);
  const max = items.reduce((m, i) => Math.max(m, i.count), 0);
  return (
    <div>
      <ol data-testid={testId} className="divide-y divide-[var(--border)]">
        {shown.map((item, i) => (
          <li key={item.key}>
            <Link
              href={item.href}
              data-testid={`${testId}-item`}
              className="group grid grid-cols-[1.25rem_minmax(0,1fr)_auto] items-center gap-x-2 gap-y-1 px-4 py-2 outline-none hover:bg-subtle focus-visible:bg-subtle focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-[var(--accent)]"
            >
              <span className="text-xs tabular-nums text-muted">{i + 1}</span>
              <span className="flex min-w-0 items-center gap-2">
                <span className="truncate font-medium group-hover:underline" data-testid="ranked-label">
                  {item.label}
                </span>
                {item.marks}
              </span>
              <span className="text-right font-semibold tabular-nums" data-testid="ranked-count" aria-label={item.countLabel}>
                {formatCount(item.count)}
              </span>
              <span />
              <span className="col-span-2 flex flex-col gap-1">
                <StackedBar counts={item.by_severity} max={max} />
                {item.detail && <span className="truncate text-xs text-muted">{item.detail}</span>}
              </span>
            </Link>
          </li>
        ))}
      </ol>
      {items.length > initial && (
        <div className="border-t border-default px-4 py-2 text-xs">
          <button type="button" className="accent hover:underline" onClick={() => setAll((v) => !v)} aria-expanded={all}>
            {all ? "Show fewer" : `Show all ${items.length} ${noun}`}
          </button>
        </div>
      )}
    </div>
  );
}
