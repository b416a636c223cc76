"use client";
import { useState } from "react";
import type { InterruptionRecord } from "@/components/api/types";
import { canTriage, useCurrentUser } from "@/components/shell/Providers";
import { SnoozeDialog } from "@/components/inbox/SnoozeDialog";
import { useTriage } from "./queries";

const btn = "rounded-md border px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50";
const primary = `${btn} border-transparent bg-[var(--accent)] text-[var(--bg)] hover:opacity-90`;
const secondary = `${btn} border-default bg-[var(--bg)] hover:bg-subtle`;

/** Acknowledge / resolve (with a note) / reopen / snooze or wake / assign to me / add a note — for triage roles only. */
export function Actions({ record }: { record: InterruptionRecord }) {
  const user = useCurrentUser();
  const triage = useTriage(record.interruption_id);
  const [resolveNote, setResolveNote] = useState("");
  const [note, setNote] = useState("");
  const [snoozing, setSnoozing] = useState(false);

  if (!canTriage(user)) {
    return (
      <p data-testid="read-only" className="text-sm text-muted">
        You can look but not change: your role (<b>{user.role}</b>) has no triage rights. Ask an admin for the responder role to acknowledge or resolve
        interruptions.
      </p>
    );
  }
  const busy = triage.isPending;
  const mine = record.assignee === user.email;
  return (
    <div className="flex flex-col gap-4" data-testid="actions">
      <div className="flex flex-wrap gap-2">
        {record.status === "open" && (
          <button type="button" className={secondary} disabled={busy} onClick={() => triage.mutate({ action: "acknowledge" })}>
            Acknowledge
          </button>
        )}
        {record.status !== "open" && (
          <button type="button" className={secondary} disabled={busy} onClick={() => triage.mutate({ action: "reopen" })} title={record.status === "snoozed" ? "Back to open now" : undefined}>
            {record.status === "snoozed" ? "Wake" : "Reopen"}
          </button>
        )}
        {record.status !== "resolved" && (
          <button
            type="button"
            className={secondary}
            disabled={busy}
            onClick={() => {
              triage.reset();
              setSnoozing(true);
            }}
          >
            {record.status === "snoozed" ? "Snooze again…" : "Snooze…"}
          </button>
        )}
        {!mine ? (
          <button type="button" className={secondary} disabled={busy} onClick={() => triage.mutate({ action: "assign", assignee: user.email })}>
            Assign to me
          </button>
        ) : (
          <button type="button" className={secondary} disabled={busy} onClick={() => triage.mutate({ action: "assign", assignee: null })}>
            Unassign
          </button>
        )}
      </div>

      {record.status !== "resolved" && (
        <form
          className="flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            triage.mutate({ action: "resolve", note: resolveNote.trim() || undefined }, { onSuccess: () => setResolveNote("") });
          }}
        >
          <label htmlFor="resolve-note" className="text-xs font-medium text-muted">
            Resolution note (optional)
          </label>
          <textarea
            id="resolve-note"
            value={resolveNote}
            onChange={(e) => setResolveNote(e.target.value)}
            rows={2}
            maxLength={10_000}
            placeholder="What fixed it, or why it needs no fix"
            className="rounded-md border border-default bg-[var(--bg)] px-2 py-1.5 text-sm"
          />
          <div>
            <button type="submit" className={primary} disabled={busy}>
              Resolve
            </button>
          </div>
        </form>
      )}

      <form
        className="flex flex-col gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (note.trim()) triage.mutate({ action: "notes", note: note.trim() }, { onSuccess: () => setNote("") });
        }}
      >
        <label htmlFor="add-note" className="text-xs font-medium text-muted">
          Note
        </label>
        <textarea
          id="add-note"
          value={note}
          onChange={(e) => setNote(e.target.value)}
          rows={2}
          maxLength={10_000}
          placeholder="Add a note for the team"
          className="rounded-md border border-default bg-[var(--bg)] px-2 py-1.5 text-sm"
        />
        <div>
          <button type="submit" className={secondary} disabled={busy || !note.trim()}>
            Add note
          </button>
        </div>
      </form>
      <SnoozeDialog
        open={snoozing}
        title="Snooze interruption"
        about={<p className="text-muted">It leaves the unresolved views and sends no alerts until it wakes.</p>}
        pending={busy}
        error={snoozing && triage.isError ? triage.error.message : null}
        onCancel={() => setSnoozing(false)}
        onConfirm={(body) => triage.mutate({ action: "snooze", body }, { onSuccess: () => setSnoozing(false) })}
      />
      {triage.isError && !snoozing && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {triage.error.message}
        </p>
      )}
    </div>
  );
}
