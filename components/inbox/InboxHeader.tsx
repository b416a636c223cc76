"use client";
// The inbox's top: title and counts, the notice of the last action, the "N new" banner and the
// line above the table (read-only note, grouped-view hint or the bulk bar).
import { formatCount } from "@/components/ui/numbers";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import { SEVERITIES } from "@/lib/domain/interruptions";
import { BulkBar } from "./Bulk";
import { useInbox } from "./context";
import { ViewMenu } from "./ViewMenu";

/** "N open · M acknowledged" (acknowledged when asked for), and the snoozed ones the total also holds. */
function statusBreakdown(total: number, open: number, acknowledged: number | null): string {
  const parts = [`${formatCount(open)} open`];
  if (acknowledged !== null) parts.push(`${formatCount(acknowledged)} acknowledged`);
  const snoozed = total - open - (acknowledged ?? 0);
  if (snoozed > 0) parts.push(`${formatCount(snoozed)} snoozed`);
  return parts.join(" · ");
}

export function InboxHeader() {
  const { view } = useInbox();
  const { count, openWanted, openCount, ackWanted, ackCount, countsPending } = view;
  // while the counts of a new filter load, the previous ones stay, dimmed and marked busy
  const shown = count.data?.total ?? null;
  const dim = countsPending ? "opacity-60 transition-opacity" : "transition-opacity";
  return (
    <header className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <h1 className="text-lg font-semibold tracking-tight">Inbox</h1>
      <div className={`flex items-center gap-2 text-sm ${dim}`} aria-live="polite" aria-busy={countsPending}>
        <span data-testid="inbox-total" className="font-medium tabular-nums">
          {shown === null ? "…" : `${formatCount(shown)} ${view.eff.status.length === 1 && view.eff.status[0] === "snoozed" ? "snoozed" : "unresolved"}`}
        </span>
        {openWanted && openCount.data && (!ackWanted || ackCount.data) && (
          <span data-testid="inbox-open-count" className="text-muted tabular-nums">
            {statusBreakdown(shown ?? 0, openCount.data.total, ackWanted ? (ackCount.data?.total ?? 0) : null)}
          </span>
        )}
      </div>
      <div data-testid="inbox-severity-counts" className={`flex items-center gap-1 ${dim}`}>
        {count.data &&
          SEVERITIES.filter((s) => count.data.by_severity[s] > 0).map((s) => <SeverityBadge key={s} severity={s} count={count.data.by_severity[s]} />)}
      </div>
      <div className="ml-auto">
        <ViewMenu />
      </div>
      <button
        type="button"
        onClick={view.refresh}
        title="Reload the list up to now"
        className="rounded-md border border-default px-2 py-1 text-xs text-muted hover:bg-subtle hover:text-[var(--fg)]"
      >
        Refresh
      </button>
    </header>
  );
}

export function InboxNotices() {
  const { view, actions } = useInbox();
  const { notice } = actions;
  const { newCount, fresh } = view;
  return (
    <>
      {/* Floats over the page instead of pushing the table down: a row aimed at as an action's
          notice appears must stay where it was; clicks pass through all but its close button. */}
      {notice && (
        <div className="pointer-events-none fixed inset-x-0 bottom-4 z-40 flex justify-center px-4">
          <div
            role={notice.tone === "error" ? "alert" : "status"}
            data-testid="inbox-notice"
            className={`pointer-events-none flex max-w-2xl items-start justify-between gap-3 rounded-md border px-3 py-2 text-sm shadow-lg ${
              notice.tone === "error"
                ? "border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
                : "border-green-300 bg-green-50 text-green-800 dark:border-green-900 dark:bg-green-950 dark:text-green-200"
            }`}
          >
            <span>{notice.text}</span>
            <button type="button" aria-label="Dismiss" onClick={actions.dismiss} className="pointer-events-auto opacity-70 hover:opacity-100">
              ×
            </button>
          </div>
        </div>
      )}

      {newCount > 0 && (
        <button
          type="button"
          data-testid="new-banner"
          onClick={view.refresh}
          className="w-full rounded-md border border-[var(--accent)] bg-[color-mix(in_srgb,var(--accent)_10%,transparent)] px-3 py-1.5 text-sm font-medium text-[var(--fg)] hover:bg-[color-mix(in_srgb,var(--accent)_18%,transparent)]"
        >
          {fresh.data?.more ? `${newCount}+` : newCount} new {newCount === 1 && !fresh.data?.more ? "interruption" : "interruptions"} — show
        </button>
      )}
    </>
  );
}

/** Above the table: why nothing can be changed, what a group row is, or the selection's actions. */
export function InboxActionsLine() {
  const { view, selection, actions } = useInbox();
  if (!actions.triage) {
    return (
      <p className="text-xs text-muted" data-testid="read-only-note">
        Read-only: your role ({actions.user.role}) can view interruptions but not acknowledge, resolve or assign them.
      </p>
    );
  }
  if (view.grouped) {
    return <p className="text-xs text-muted">Each row is one fingerprint (type + agent + model + error code). Group actions apply to every member that matches the filters.</p>;
  }
  return (
    <BulkBar
      selectedCount={selection.count}
      all={selection.all}
      total={view.total}
      unresolvedOnly={view.eff.unresolved}
      onSelectAll={selection.selectAll}
      onClear={selection.clear}
      onAction={actions.bulkOnSelection}
    />
  );
}
