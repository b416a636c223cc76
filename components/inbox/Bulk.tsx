"use client";
import { useEffect, useState } from "react";
import { ApiRequestError } from "@/components/api/client";
import { ConfirmDialog } from "@/components/ui/Dialog";
import { formatCount } from "@/components/ui/numbers";
import { NoteField } from "./NoteField";
import { compact, type FilterQuery } from "./params";
import { useBulkAction } from "./queries";

export type BulkAction = "acknowledge" | "resolve" | "assign" | "unassign";
/**
 * What the user asked for: an action on the selected ids, on everything matching, or on a
 * group of the grouped view (`group`: its filter, which adds the fingerprint to the view's).
 */
export type BulkIntent = { action: BulkAction; count: number; all: boolean; ids: string[]; group?: { filter: Record<string, string>; label: string } };

const WORDS: Record<BulkAction, { verb: string; done: string; already: string }> = {
  acknowledge: { verb: "Acknowledge", done: "Acknowledged", already: "already acknowledged or resolved" },
  resolve: { verb: "Resolve", done: "Resolved", already: "already resolved" },
  assign: { verb: "Assign", done: "Assigned to you:", already: "already yours" },
  unassign: { verb: "Unassign", done: "Unassigned", already: "already unassigned" },
};

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
  onAction: (action: BulkAction | "snooze") => void;
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
        <span className="text-xs">Select rows (or press x) to acknowledge, resolve, snooze or assign several at once.</span>
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
            <button type="button" onClick={() => onAction("assign")} className="rounded-md border border-default bg-[var(--bg)] px-2.5 py-1 text-xs font-medium hover:border-[var(--accent)]">
              Assign to me
            </button>
            <button type="button" onClick={() => onAction("unassign")} className="rounded-md border border-default bg-[var(--bg)] px-2.5 py-1 text-xs font-medium hover:border-[var(--accent)]">
              Unassign
            </button>
            <button type="button" onClick={() => onAction("snooze")} className="rounded-md border border-default bg-[var(--bg)] px-2.5 py-1 text-xs font-medium hover:border-[var(--accent)]">
              Snooze selected
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
  me,
  onClose,
  onDone,
}: {
  intent: BulkIntent | null;
  filter: FilterQuery;
  /** The signed-in user's email (the assignee of "Assign to me"). */
  me: string;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const bulk = useBulkAction();
  const [note, setNote] = useState("");
  const [shown, setShown] = useState<BulkIntent | null>(null);
  // "all matching" acts on the filter its count was read under: the view's may change behind the
  // open dialog (Back in the browser), and the dialog's number must stay the truth
  const [counted, setCounted] = useState(filter);
  if (intent !== shown) {
    setShown(intent);
    setCounted(filter);
    setNote("");
  }
  const { reset } = bulk;
  useEffect(() => reset(), [intent, reset]);
  const words = WORDS[intent?.action ?? "acknowledge"];
  const verb = words.verb;
  const confirm = () => {
    if (!intent) return;
    // A group goes by its filter; "all matching" by filter (only unresolved rows can change);
    // a page selection by ids.
    const target = intent.group
      ? { filter: intent.group.filter }
      : intent.all
        ? { filter: compact({ ...counted, resolved: "false" }) }
        : { ids: intent.ids };
    const action = intent.action === "unassign" ? "assign" : intent.action;
    const assignee = intent.action === "assign" ? { assignee: me } : intent.action === "unassign" ? { assignee: null } : {};
    bulk.mutate(
      { action, note, ...assignee, ...target },
      {
        onSuccess: ({ matched, changed }) => {
          const skipped = matched - changed;
          onDone(`${words.done} ${noun(changed)}${skipped > 0 ? ` (${formatCount(skipped)} ${words.already})` : ""}.`);
        },
      },
    );
  };
  const error = bulk.error ? (bulk.error instanceof ApiRequestError ? bulk.error.message : String(bulk.error)) : null;
  const what = intent?.action === "assign" ? " to you" : "";
  const lower = verb.toLowerCase();
  return (
    <ConfirmDialog
      open={intent !== null}
      title={intent ? `${verb} ${noun(intent.count)}${what}?` : ""}
      confirmLabel={intent ? `${verb} ${formatCount(intent.count)}` : verb}
      pending={bulk.isPending}
      error={error}
      onCancel={onClose}
      onConfirm={confirm}
      testId="bulk-dialog"
    >
      {intent && (
        <p data-testid="bulk-dialog-summary">
          {intent.group
            ? `This will ${lower} all ${noun(intent.count)} in the group ${intent.group.label} that match the current filters${what}, including ones not shown.`
            : intent.all
              ? `This will ${lower} all ${noun(intent.count)} that are unresolved and match the current filters${what}, including ones not shown on this page.`
              : `This will ${lower} the ${noun(intent.count)} you selected${what}.`}
        </p>
      )}
      <NoteField value={note} onChange={setNote} label="Note for each (optional)" />
    </ConfirmDialog>
  );
}
