"use client";
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable, type ColumnDef } from "@tanstack/react-table";
import { format } from "date-fns";
import Link from "next/link";
import { useEffect, useMemo, useRef, type MutableRefObject } from "react";
import type { InterruptionRecord, SnoozeRecord } from "@/components/api/types";
import { nsToDate, shortId } from "@/components/ui/format";
import { SeverityBadge, StatusBadge } from "@/components/ui/SeverityBadge";
import type { SortKey } from "./params";
import { RegressedChip } from "./RegressedChip";
import { summarize } from "./summary";
import { wakesWhen } from "./snoozeText";

export type TableProps = {
  rows: InterruptionRecord[];
  sort: SortKey;
  order: "asc" | "desc";
  onSort: (key: SortKey) => void;
  triage: boolean;
  selected: ReadonlySet<string>;
  allMatching: boolean;
  /** the rows are the previous view's, shown until this one's arrive: not selectable */
  selectionOff?: boolean;
  onToggle: (row: InterruptionRecord) => void;
  /** The signed-in user's email (their assignments read "you"). */
  me: string;
  onAssign: (row: InterruptionRecord) => void;
  onTogglePage: () => void;
  focused: number;
  onFocusRow: (index: number) => void;
  onAcknowledge: (row: InterruptionRecord) => void;
  onResolve: (row: InterruptionRecord) => void;
  onSnooze: (row: InterruptionRecord) => void;
  /** A snoozed row back to open now. */
  onWake: (row: InterruptionRecord) => void;
  /** The active snoozes by id, to say what wakes each snoozed row (while loading: undefined). */
  snoozes: ReadonlyMap<string, SnoozeRecord> | undefined;
  pending: ReadonlySet<string>;
  dimResolved: boolean;
  nowMs: number;
  rowRefs: MutableRefObject<(HTMLTableRowElement | null)[]>;
};

function ago(ms: number, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function When({ ns, nowMs }: { ns: string; nowMs: number }) {
  const d = nsToDate(ns);
  const recent = nowMs - d.getTime() < 20 * 3600_000;
  return (
    <time dateTime={d.toISOString()} title={format(d, "yyyy-MM-dd HH:mm:ss.SSS")} className="whitespace-nowrap tabular-nums">
      {format(d, recent ? "HH:mm:ss" : "MMM d HH:mm")}
      <span className="ml-1.5 text-muted">{ago(d.getTime(), nowMs)} ago</span>
    </time>
  );
}

const SORTABLE: Partial<Record<string, SortKey>> = { time: "time", agent: "agent", type: "type", severity: "severity" };

const col = createColumnHelper<InterruptionRecord>();

/** Less important columns give way on narrow screens (the details page has them all). */
const RESPONSIVE: Partial<Record<string, string>> = { session: "hidden lg:table-cell", conversation: "hidden 2xl:table-cell" };

const btn =
  "rounded px-1.5 py-0.5 text-xs font-medium border border-default hover:bg-[var(--bg)] hover:border-[var(--accent)] disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:border-[var(--border)]";

export function InboxTable(p: TableProps) {
  const pageIds = p.rows.map((r) => r.interruption_id);
  const selectedOnPage = pageIds.filter((id) => p.allMatching || p.selected.has(id)).length;
  const headerBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (headerBox.current) headerBox.current.indeterminate = selectedOnPage > 0 && selectedOnPage < pageIds.length;
  }, [selectedOnPage, pageIds.length]);

  // Handlers change every render; the columns read them through a ref so they stay memoized.
  const live = useRef(p);
  live.current = p;

  const columns = useMemo(() => {
    const list: ColumnDef<InterruptionRecord, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (p.triage) {
      list.push(
        col.display({
          id: "select",
          header: () => null,
          cell: ({ row }) => {
            const id = row.original.interruption_id;
            const checked = live.current.allMatching || live.current.selected.has(id);
            return (
              <input
                type="checkbox"
                checked={checked}
                disabled={live.current.allMatching || live.current.selectionOff}
                onChange={() => live.current.onToggle(row.original)}
                onClick={(e) => e.stopPropagation()}
                aria-label={`Select ${row.original.interruption_type} of ${row.original.agent_name ?? "unknown agent"}`}
                className="accent-[var(--accent)]"
              />
            );
          },
        }),
      );
    }
    list.push(
      col.accessor("occurred_at_ns", { id: "time", header: "Time", cell: (c) => <When ns={c.getValue()} nowMs={live.current.nowMs} /> }),
      col.accessor("agent_name", {
        id: "agent",
        header: "Agent",
        cell: (c) => (
          <span className="block max-w-[11rem] truncate" title={c.getValue() ?? undefined} data-testid="cell-agent">
            {c.getValue() ?? <span className="text-muted">—</span>}
          </span>
        ),
      }),
      col.accessor("interruption_type", {
        id: "type",
        header: "Type",
        cell: (c) => (
          <span className="inline-flex items-center gap-1 whitespace-nowrap font-mono text-xs">
            <span data-testid="cell-type">{c.getValue()}</span>
            {c.row.original.occurrences > 1 && (
              <span className="rounded bg-subtle px-1 font-sans text-[11px] text-muted" title={`${c.row.original.occurrences} occurrences`}>
                ×{c.row.original.occurrences}
              </span>
            )}
            {c.row.original.regressed && <RegressedChip />}
          </span>
        ),
      }),
      col.accessor("severity", { id: "severity", header: "Severity", cell: (c) => <SeverityBadge severity={c.getValue()} /> }),
      col.accessor("detail", {
        id: "summary",
        header: "Summary",
        cell: (c) => {
          const text = summarize(c.getValue());
          return (
            <span className="block truncate text-muted" title={text} data-testid="cell-summary">
              {text}
            </span>
          );
        },
      }),
      col.accessor("session_id", {
        id: "session",
        header: "Session",
        cell: (c) => {
          const id = c.getValue();
          return id ? (
            <Link href={`/sessions/${encodeURIComponent(id)}`} prefetch={false} title={id} onClick={(e) => e.stopPropagation()} className="font-mono text-xs hover:underline">
              {shortId(id)}
            </Link>
          ) : (
            <span className="text-muted">—</span>
          );
        },
      }),
      col.accessor("conversation_id", {
        id: "conversation",
        header: "Conversation",
        cell: (c) => (
          <span className="font-mono text-xs" title={c.getValue() ?? undefined}>
            {shortId(c.getValue())}
          </span>
        ),
      }),
      col.accessor("status", {
        id: "status",
        header: "Status",
        cell: (c) => {
          const s = c.row.original.snooze_id ? live.current.snoozes?.get(c.row.original.snooze_id) : undefined;
          return (
            <span className="inline-flex items-center gap-1.5">
              <span data-testid="cell-status">
                <StatusBadge status={c.getValue()} />
              </span>
              {s && (
                <span className="text-[11px] text-muted" data-testid="cell-snooze" title={s.reason ? `Reason: ${s.reason}` : undefined}>
                  {wakesWhen(s)}
                </span>
              )}
            </span>
          );
        },
      }),
      col.accessor("assignee", {
        id: "assignee",
        header: "Assignee",
        cell: (c) => {
          const who = c.getValue();
          const mine = who !== null && who === live.current.me;
          return (
            <span data-testid="cell-assignee" title={who ?? "Unassigned"} className={`block max-w-[10rem] truncate ${who ? (mine ? "font-medium" : "") : "text-muted"}`}>
              {who === null ? "—" : mine ? "you" : who}
            </span>
          );
        },
      }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row }) => {
          const r = row.original;
          const lp = live.current;
          const busy = lp.pending.has(r.interruption_id);
          return (
            <div className="flex items-center justify-end gap-1" onClick={(e) => e.stopPropagation()}>
              {lp.triage && (
                <>
                  <button type="button" className={btn} disabled={busy || r.status !== "open"} onClick={() => lp.onAcknowledge(r)} title="Acknowledge (a)" aria-label="Acknowledge">
                    Ack
                  </button>
                  <button type="button" className={btn} disabled={busy || r.status === "resolved"} onClick={() => lp.onResolve(r)} title="Resolve (r)">
                    Resolve
                  </button>
                  {r.status === "snoozed" ? (
                    <button type="button" className={btn} disabled={busy} onClick={() => lp.onWake(r)} title="Back to open now">
                      Wake
                    </button>
                  ) : (
                    <button type="button" className={btn} disabled={busy || r.status === "resolved"} onClick={() => lp.onSnooze(r)} title="Snooze until a time, more occurrences or escalation (s)">
                      Snooze
                    </button>
                  )}
                  <button
                    type="button"
                    className={`${btn} min-w-[5.5rem]`}
                    disabled={busy}
                    onClick={() => lp.onAssign(r)}
                    title={r.assignee === lp.me ? "Unassign yourself (m)" : r.assignee ? `Take over from ${r.assignee} (m)` : "Assign to me (m)"}
                  >
                    {r.assignee === lp.me ? "Unassign" : "Assign to me"}
                  </button>
                </>
              )}
              <Link href={`/interruptions/${encodeURIComponent(r.interruption_id)}`} prefetch={false} className={`${btn} text-center`} title="Open details (o)">
                Open
              </Link>
            </div>
          );
        },
      }),
    );
    return list;
  }, [p.triage]);

  const table = useReactTable({ data: p.rows, columns, getCoreRowModel: getCoreRowModel(), manualSorting: true, getRowId: (r) => r.interruption_id });

  return (
    <table className="w-full border-collapse text-[13px]" data-testid="inbox-table">
      <thead className="sticky top-0 z-10 bg-subtle text-left text-xs text-muted">
        {table.getHeaderGroups().map((hg) => (
          <tr key={hg.id}>
            {hg.headers.map((h) => {
              const key = SORTABLE[h.column.id];
              const active = key === p.sort;
              return (
                <th
                  key={h.id}
                  scope="col"
                  aria-sort={active ? (p.order === "asc" ? "ascending" : "descending") : undefined}
                  className={`whitespace-nowrap border-b border-default px-2 py-1.5 font-medium ${h.column.id === "select" ? "w-8" : ""} ${RESPONSIVE[h.column.id] ?? ""}`}
                >
                  {h.column.id === "select" ? (
                    <input
                      ref={headerBox}
                      type="checkbox"
                      aria-label="Select all shown"
                      title="Select all shown"
                      checked={pageIds.length > 0 && selectedOnPage === pageIds.length}
                      disabled={p.allMatching || p.selectionOff || pageIds.length === 0}
                      onChange={p.onTogglePage}
                      className="accent-[var(--accent)]"
                    />
                  ) : key ? (
                    <button
                      type="button"
                      onClick={() => p.onSort(key)}
                      className={`inline-flex items-center gap-1 hover:text-[var(--fg)] ${active ? "text-[var(--fg)]" : ""}`}
                    >
                      {flexRender(h.column.columnDef.header, h.getContext())}
                      <span aria-hidden="true" className={active ? "" : "opacity-0"}>
                        {active && p.order === "asc" ? "▲" : "▼"}
                      </span>
                    </button>
                  ) : (
                    flexRender(h.column.columnDef.header, h.getContext())
                  )}
                </th>
              );
            })}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.map((row, i) => {
          const r = row.original;
          const isFocused = i === p.focused;
          const isSelected = p.allMatching || p.selected.has(r.interruption_id);
          return (
            <tr
              key={row.id}
              ref={(el) => {
                p.rowRefs.current[i] = el;
              }}
              data-id={r.interruption_id}
              data-severity={r.severity}
              data-status={r.status}
              data-focused={isFocused || undefined}
              tabIndex={isFocused || (p.focused < 0 && i === 0) ? 0 : -1}
              onFocus={() => p.onFocusRow(i)}
              onClick={() => p.onFocusRow(i)}
              // scroll-mb: a row moved to with j/k stops above the notice floating at the window's bottom
              className={`scroll-mb-24 border-b border-default outline-none transition-colors ${isSelected ? "bg-[color-mix(in_srgb,var(--accent)_10%,transparent)]" : "hover:bg-subtle"} ${
                isFocused ? "shadow-[inset_3px_0_0_var(--accent)] bg-subtle" : ""
              } ${p.dimResolved && r.status === "resolved" ? "opacity-55" : ""}`}
            >
              {row.getVisibleCells().map((cell) => (
                // The summary takes whatever width is left and truncates (w-full + max-w-0).
                <td key={cell.id} className={`px-2 py-1.5 align-middle ${cell.column.id === "summary" ? "w-full max-w-0" : "whitespace-nowrap"} ${RESPONSIVE[cell.column.id] ?? ""}`}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
