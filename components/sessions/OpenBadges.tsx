"use client";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import { SEVERITIES } from "@/lib/domain/interruptions";
import { Tooltip } from "@/components/ui/Tooltip";
import type { OpenInterruptions } from "./types";

/** One badge per non-zero severity; hovering or focusing a badge lists its types and counts. */
export function OpenBadges({ open }: { open: OpenInterruptions }) {
  if (!open.total) return <span className="text-muted" aria-label="no open interruptions">—</span>;
  return (
    <span className="inline-flex flex-wrap gap-1" data-testid="open-badges">
      {SEVERITIES.filter((s) => (open.by_severity[s] ?? 0) > 0).map((s) => {
        const n = open.by_severity[s];
        const types = open.types.filter((t) => t.severity === s).sort((a, b) => b.count - a.count || a.interruption_type.localeCompare(b.interruption_type));
        return (
          <Tooltip
            key={s}
            testId={`open-badge-${s}`}
            content={
              <span data-testid="badge-tooltip" className="block">
                <span className="mb-1 block font-medium">
                  {n} open {s}
                </span>
                <span className="block space-y-0.5">
                  {types.map((t) => (
                    <span key={t.interruption_type} data-testid="badge-tooltip-type" data-type={t.interruption_type} className="flex justify-between gap-4">
                      <span className="font-mono">{t.interruption_type}</span>
                      <span className="tabular-nums">×{t.count}</span>
                    </span>
                  ))}
                </span>
              </span>
            }
          >
            <SeverityBadge severity={s} count={n} />
          </Tooltip>
        );
      })}
    </span>
  );
}
