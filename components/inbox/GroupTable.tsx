"use client";
import { format } from "date-fns";
import type { MutableRefObject } from "react";
import { nsToDate } from "@/components/ui/format";
import { formatCount } from "@/components/ui/numbers";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import { Sparkline } from "@/components/ui/Sparkline";
import type { Group } from "./queries";
import { RegressedChip } from "./RegressedChip";

const btn =
  "rounded px-1.5 py-0.5 text-xs font-medium border border-default hover:bg-[var(--bg)] hover:border-[var(--accent)] disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:border-[var(--border)]";

function Seen({ ns }: { ns: string }) {
  const d = nsToDate(ns);
  return (
    <time dateTime={d.toISOString()} title={format(d, "yyyy-MM-dd HH:mm:ss.SSS")} className="whitespace-nowrap tabular-nums">
      {format(d, "MMM d HH:mm:ss")}
    </time>
  );
}

/** The grouped inbox: one row per fingerprint, with its state, trend and group actions. */
export function GroupTable({
  groups,
  triage,
  focused,
  onFocusRow,
  onShowMembers,
  onAcknowledge,
  onResolve,
  onSnooze,
  bucketLabel,
  rowRefs,
}: {
  groups: Group[];
  triage: boolean;
  focused: number;
  onFocusRow: (i: number) => void;
  onShowMembers: (g: Group) => void;
  onAcknowledge: (g: Group) => void;
  onResolve: (g: Group) => void;
  onSnooze: (g: Group) => void;
  bucketLabel: string;
  rowRefs: MutableRefObject<(HTMLTableRowElement | null)[]>;
}) {
  return (
    <table className="w-full border-collapse text-[13px]" data-testid="group-table">
      <caption className="sr-only">Interruptions grouped by fingerprint (type, agent, model and error code)</caption>
      <thead className="sticky top-0 z-10 bg-subtle text-left text-xs text-muted">
        <tr>
          {["Type", "Agent", "Severity", "Count", "First seen", "Last seen", "Trend", "State"].map((h) => (
            <th key={h} scope="col" className={`whitespace-nowrap border-b border-default px-2 py-1.5 font-medium ${h === "Count" ? "text-right" : ""}`}>
              {h}
            </th>
          ))}
          <th scope="col" className="border-b border-default px-2 py-1.5">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {groups.map((g, i) => {
          const isFocused = i === focused;
          const unresolved = g.by_status.open + g.by_status.acknowledged + g.by_status.snoozed;
          return (
            <tr
              key={g.fingerprint}
              ref={(el) => {
                rowRefs.current[i] = el;
              }}
              data-fingerprint={g.fingerprint}
              data-focused={isFocused || undefined}
              tabIndex={isFocused || (focused < 0 && i === 0) ? 0 : -1}
              onFocus={() => onFocusRow(i)}
              onClick={() => onFocusRow(i)}
              className={`border-b border-default outline-none transition-colors hover:bg-subtle ${isFocused ? "bg-subtle shadow-[inset_3px_0_0_var(--accent)]" : ""}`}
            >
              <td className="whitespace-nowrap px-2 py-1.5">
                <span className="inline-flex items-center gap-1 font-mono text-xs">
                  <button
                    type="button"
                    onClick={(e) => {
                      e.stopPropagation();
                      onShowMembers(g);
                    }}
                    title="Show this group's interruptions (o)"
                    className="hover:underline"
                    data-testid="group-type"
                  >
                    {g.interruption_type}
                  </button>
                  {g.regressed && <RegressedChip />}
                </span>
              </td>
              <td className="px-2 py-1.5">
                <span className="block max-w-[18rem] truncate" title={[g.agent_name, g.model].filter(Boolean).join(" · ") || undefined} data-testid="group-agent">
                  {g.agent_name ?? <span className="text-muted">—</span>}
                  {g.model && <span className="ml-1 text-xs text-muted">{g.model}</span>}
                </span>
              </td>
              <td className="px-2 py-1.5">
                <SeverityBadge severity={g.severity} />
              </td>
              <td className="px-2 py-1.5 text-right font-medium tabular-nums" data-testid="group-count">
                {formatCount(g.count)}
              </td>
              <td className="px-2 py-1.5">
                <Seen ns={g.first_seen_ns} />
              </td>
              <td className="px-2 py-1.5">
                <Seen ns={g.last_seen_ns} />
              </td>
              <td className="px-2 py-1.5">
                <Sparkline values={g.trend} label={`interruptions, per ${bucketLabel}`} testId="group-trend" />
              </td>
              <td className="whitespace-nowrap px-2 py-1.5 text-xs tabular-nums" data-testid="group-state">
                {`${g.by_status.open} open · ${g.by_status.acknowledged} ack · ${g.by_status.snoozed ? `${g.by_status.snoozed} snoozed · ` : ""}${g.by_status.resolved} resolved`}
              </td>
              <td className="px-2 py-1.5">
                <div className="flex items-center justify-end gap-1 whitespace-nowrap" onClick={(e) => e.stopPropagation()}>
                  {triage && (
                    <>
                      <button type="button" className={btn} disabled={g.by_status.open === 0} onClick={() => onAcknowledge(g)} title="Acknowledge every open one in this group (a)">
                        Acknowledge group
                      </button>
                      <button type="button" className={btn} disabled={unresolved === 0} onClick={() => onResolve(g)} title="Resolve every unresolved one in this group (r)">
                        Resolve group
                      </button>
                      <button type="button" className={btn} onClick={() => onSnooze(g)} title="Snooze the whole group, new arrivals included (s)">
                        Snooze group
                      </button>
                    </>
                  )}
                  <button type="button" className={btn} onClick={() => onShowMembers(g)} title="Show this group's interruptions (o)">
                    Members
                  </button>
                </div>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
