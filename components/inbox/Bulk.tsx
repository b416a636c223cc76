"use client";
import { useEffect, useState } from "react";
import { ApiRequestError } from "@/components/api/client";
import { ConfirmDialog } from "@/components/ui/Dialog";
import { formatCount } from "@/components/ui/numbers";
import { NoteField } from "./NoteField";
import { compact, type FilterQuery } from "./params";
import { useBulkAction } from "./queries";

export type BulkAction = "acknowledge" | "resolve";
/** What the user asked for: an action on the selected ids, or on everything matching. */
export type BulkIntent = { action: BulkAction; count: number; all: boolean; ids: string[]; group?: boolean };

const noun = (n: number) => `${formatCount(n)} interruption${n === 1 ? "" : "s"}`;

/** Always present (so the table never shifts): a hint, or the selection and its actions. */
export function BulkBar({
  selectedCount,
  all,
  total,
  unresolvedOnly,
  onSelectAll,
  onClear,
  onAction,
}: {
  selectedCount: number;
  all: boolean;
  total: number | null;
  unresolvedOnly: boolean;
  onSelectAll: () => void;
  onClear: () => void;
  onAction: (action: BulkAction) => void;
}) {
  const any = selectedCount > 0;
  const matching = unresolvedOnly ? "matching" : "unresolved matching";
  return (
    <div
      data-testid="bulk-bar"
      className={`flex min-h-9 flex-wrap items-center gap-x-3 gap-y-1 rounded-md px-3 py-1.5 text-sm ${
        any ? "border border-[var(--accent)] bg-[color-mix(in_srgb,var(--accent)_8%,transparent)]" : "border border-dashed border-default text-muted"
      }`}
    >
      {!any ? (
        <span className="text-xs">Select rows (or press x) to acknowledge or resolve several at once.</span>
      ) : (
        <>
          <span data-testid="bulk-selected" className="font-medium">
            {all ? `All ${noun(selectedCount)} ${matching} selected` : `${formatCount(selectedCount)} selected`}
          </span>
          {!all && total !== null && total > selectedCount && (
            <button type="button" onClick={onSelectAll} className="text-[var(--accent)] underline-offset-2 hover:underline">
              Select all {formatCount(total)} {matching}
            </button>
          )}
          <span className="ml-auto flex items-center gap-2">
            <button type="button" onClick={() => onAction("acknowledge")} className="rounded-md border border-default bg-[var(--bg)] px-2.5 py-1 text-xs font-medium hover:border-[var(--accent)]">
              Acknowledge selected
            </button>
            <button type="button" onClick={() => onAction("resolve")} className="rounded-md bg-[var(--accent)] px-2.5 py-1 text-xs font-medium text-[var(--bg)] hover:opacity-90">
              Resolve selected
            </button>
            <button type="button" onClick={onClear} className="text-xs text-muted hover:text-[var(--fg)]">
              Clear
            </button>
          </span>
        </>
      )}
    </div>
  );
}

/** Confirms a bulk action, stating how many interruptions it touches, then runs it. */
export function BulkDialog({
  intent,
  filter,
  onClose,
  onDone,
}: {
  intent: BulkIntent | null;
  filter: FilterQuery;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const bulk = useBulkAction();
  const [note, setNote] = useState("");
  const [shown, setShown] = useState<BulkIntent | null>(null);
  if (intent !== shown) {
    setShown(intent);
    setNote("");
  }
  const { reset } = bulk;
  useEffect(() => reset(), [intent, reset]);
  const verb = intent?.action === "resolve" ? "Resolve" : "Acknowledge";
  const done = intent?.action === "resolve" ? "Resolved" : "Acknowledged";
  const confirm = () => {
    if (!intent) return;
    // "All matching" goes by filter (only unresolved rows can change), a page selection by ids.
    const target = intent.all ? { filter: compact({ ...filter, resolved: "false" }) } : { ids: intent.ids };
    bulk.mutate(
      { action: intent.action, note, ...target },
      {
        onSuccess: ({ matched, changed }) => {
          const skipped = matched - changed;
          onDone(`${done} ${noun(changed)}${skipped > 0 ? ` (${formatCount(skipped)} already ${intent.action === "resolve" ? "resolved" : "acknowledged or resolved"})` : ""}.`);
        },
      },
    );
  };
  const error = bulk.error ? (bulk.error instanceof ApiRequestError ? bulk.error.message : String(bulk.error)) : null;
  return (
    <ConfirmDialog
      open={intent !== null}
      title={intent ? `${verb} ${noun(intent.count)}?` : ""}
      confirmLabel={intent ? `${verb} ${formatCount(intent.count)}` : verb}
      pending={bulk.isPending}
      error={error}
      onCancel={onClose}
      onConfirm={confirm}
      testId="bulk-dialog"
    >
      {intent && (
        <p data-testid="bulk-dialog-summary">
          {intent.all
            ? `This will ${verb.toLowerCase()} all ${noun(intent.count)} that are unresolved and match the current filters, including ones not shown on this page.`
            : intent.group
              ? `This will ${verb.toLowerCase()} all ${noun(intent.count)} in this group (same fingerprint, among the loaded rows).`
              : `This will ${verb.toLowerCase()} the ${noun(intent.count)} you selected.`}
        </p>
      )}
      <NoteField value={note} onChange={setNote} label="Note for each (optional)" />
    </ConfirmDialog>
  );
}
