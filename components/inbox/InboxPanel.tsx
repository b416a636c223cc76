"use client";
// The table area: the grouped view or the list, with their loading, error and empty states.
import Link from "next/link";
import { useInbox } from "./context";
import { GroupTable } from "./GroupTable";
import { InboxTable } from "./InboxTable";
import { errorText } from "./useTriage";

export function InboxPanel() {
  const { view } = useInbox();
  const { grouped, groupsQ, list } = view;
  return (
    <div
      id="inbox-panel"
      className={`overflow-x-auto rounded-lg border border-default transition-opacity ${(grouped ? groupsQ.isPlaceholderData : list.isPlaceholderData) ? "opacity-60" : ""}`}
      aria-busy={grouped ? groupsQ.isFetching : list.isFetching}
    >
      {grouped ? <Groups /> : <Rows />}
    </div>
  );
}

function Groups() {
  const { view, selection, actions } = useInbox();
  const { groupsQ, groups } = view;
  if (groupsQ.isError && !groups.length) return <LoadError what="groups" error={groupsQ.error} retry={() => void groupsQ.refetch()} />;
  if (groupsQ.isPending) return <Skeleton label="Loading groups" rows={6} />;
  if (groups.length === 0) return <EmptyState unresolvedOnly={view.eff.unresolved} />;
  return (
    <GroupTable
      groups={groups}
      triage={actions.triage}
      focused={selection.focused}
      onFocusRow={selection.setFocused}
      onShowMembers={view.showMembers}
      onAcknowledge={(g) => actions.groupAction(g, "acknowledge")}
      onResolve={(g) => actions.groupAction(g, "resolve")}
      onSnooze={actions.askSnoozeGroup}
      bucketLabel={view.bucketLabel}
      rowRefs={selection.groupRefs}
    />
  );
}

function Rows() {
  const { view, selection, actions } = useInbox();
  const { list, rows, params } = view;
  if (list.isError && !rows.length) return <LoadError what="interruptions" error={list.error} retry={() => void list.refetch()} />;
  if (list.isPending) return <Skeleton label="Loading interruptions" rows={8} />;
  if (rows.length === 0) return <EmptyState unresolvedOnly={view.eff.unresolved} />;
  return (
    <InboxTable
      rows={rows}
      sort={params.sort}
      order={params.order}
      onSort={view.onSort}
      triage={actions.triage}
      me={actions.user.email}
      selected={selection.ids}
      allMatching={selection.all}
      selectionOff={selection.stale}
      onToggle={selection.toggle}
      onTogglePage={selection.togglePage}
      focused={selection.focused}
      onFocusRow={selection.setFocused}
      onAcknowledge={actions.acknowledge}
      onResolve={actions.askResolve}
      onSnooze={actions.askSnooze}
      onWake={actions.wake}
      snoozes={view.snoozes}
      onAssign={actions.assignToMe}
      pending={actions.pending}
      dimResolved={view.eff.unresolved}
      nowMs={view.nowMs}
      rowRefs={selection.rowRefs}
    />
  );
}

function LoadError({ what, error, retry }: { what: string; error: unknown; retry: () => void }) {
  return (
    <div role="alert" className="px-4 py-8 text-center text-sm">
      <p className="text-red-700 dark:text-red-300">
        Could not load {what}: {errorText(error)}
      </p>
      <button type="button" onClick={retry} className="mt-2 rounded border border-default px-2 py-1 text-xs hover:bg-subtle">
        Retry
      </button>
    </div>
  );
}

function Skeleton({ label, rows }: { label: string; rows: number }) {
  return (
    <div className="space-y-2 p-4" aria-label={label}>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="h-5 animate-pulse rounded bg-subtle" />
      ))}
    </div>
  );
}

function EmptyState({ unresolvedOnly }: { unresolvedOnly: boolean }) {
  return (
    <div className="px-4 py-10 text-center text-sm text-muted" data-testid="inbox-empty">
      <p className="font-medium text-[var(--fg)]">No interruptions match.</p>
      <p className="mt-1">
        {unresolvedOnly ? "Resolved and snoozed interruptions are hidden (see their tabs). " : ""}
        Try a wider time range or fewer filters.
      </p>
      <p className="mt-3">
        Nothing arriving yet?{" "}
        <Link href="/connect" className="font-medium text-[var(--accent)] underline-offset-2 hover:underline" data-testid="connect-link">
          Connect an agent
        </Link>
      </p>
    </div>
  );
}
