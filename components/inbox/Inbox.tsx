"use client";
// The inbox page: its state is built here once (context.tsx) and read by each part.
import { useRef } from "react";
import { useRememberListUrl } from "@/components/ui/listReturn";
import { BulkDialog } from "./Bulk";
import { InboxContext, useInboxState } from "./context";
import { FilterBar } from "./FilterBar";
import { InboxFooter } from "./InboxFooter";
import { InboxActionsLine, InboxHeader, InboxNotices } from "./InboxHeader";
import { InboxPanel } from "./InboxPanel";
import { useInboxKeyboard } from "./keyboard";
import { ResolveDialog } from "./ResolveDialog";
import { SnoozeTargetDialog } from "./SnoozeTarget";
import { TriageTabs } from "./TriageTabs";

export function Inbox() {
  const state = useInboxState();
  const { view, actions } = state;
  const searchRef = useRef<HTMLInputElement>(null);
  useInboxKeyboard(state, searchRef);
  useRememberListUrl("/inbox");
  const { resolving } = actions;

  return (
    <InboxContext value={state}>
      {/* room below the footer while a notice floats there, so it covers none of it */}
      <div className={`space-y-3 ${actions.notice ? "pb-16" : ""}`}>
        <InboxHeader />
        <TriageTabs active={view.tab} counts={view.tabCounts} />
        <FilterBar params={view.params} onChange={view.update} onSearch={view.onSearch} searchRef={searchRef} />
        <InboxNotices />
        <InboxActionsLine />
        <InboxPanel />
        <InboxFooter />

        <ResolveDialog
          row={resolving}
          pending={resolving !== null && actions.pending.has(resolving.interruption_id)}
          error={actions.resolveError}
          onCancel={actions.cancelResolve}
          onConfirm={actions.confirmResolve}
        />
        <SnoozeTargetDialog />
        <BulkDialog intent={actions.bulk} filter={view.filter} me={actions.user.email} onClose={actions.closeBulk} onDone={actions.bulkDone} />
      </div>
    </InboxContext>
  );
}
