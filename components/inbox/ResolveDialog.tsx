"use client";
import { useState } from "react";
import type { InterruptionRecord } from "@/components/api/types";
import { ConfirmDialog } from "@/components/ui/Dialog";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import { NoteField } from "./NoteField";
import { summarize } from "./summary";

/** Resolve one interruption, with an optional note. */
export function ResolveDialog({
  row,
  pending,
  error,
  onCancel,
  onConfirm,
}: {
  row: InterruptionRecord | null;
  pending: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: (note: string) => void;
}) {
  const [note, setNote] = useState("");
  const [forId, setForId] = useState<string | null>(null);
  if ((row?.interruption_id ?? null) !== forId) {
    setForId(row?.interruption_id ?? null);
    setNote("");
  }
  return (
    <ConfirmDialog
      open={row !== null}
      title="Resolve interruption"
      confirmLabel="Resolve"
      pending={pending}
      error={error}
      onCancel={onCancel}
      onConfirm={() => onConfirm(note)}
      testId="resolve-dialog"
    >
      {row && (
        <div className="space-y-1 rounded-md border border-default bg-subtle px-3 py-2">
          <div className="flex flex-wrap items-center gap-2">
            <SeverityBadge severity={row.severity} />
            <span className="font-mono text-xs">{row.interruption_type}</span>
            <span className="truncate text-muted">{row.agent_name ?? "unknown agent"}</span>
          </div>
          <p className="line-clamp-2 text-xs text-muted">{summarize(row.detail)}</p>
        </div>
      )}
      <NoteField value={note} onChange={setNote} />
    </ConfirmDialog>
  );
}
