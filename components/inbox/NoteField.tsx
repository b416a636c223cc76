"use client";
import { useId } from "react";

/** An optional note; Enter submits the surrounding form, Shift+Enter starts a new line. */
export function NoteField({ value, onChange, label = "Note (optional)" }: { value: string; onChange: (v: string) => void; label?: string }) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-xs font-medium text-muted">
        {label}
      </label>
      <textarea
        id={id}
        data-autofocus
        rows={3}
        maxLength={10_000}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
        placeholder="What was done, or why it needs no action"
        className="w-full resize-y rounded-md border border-default bg-[var(--bg)] px-2 py-1.5 text-sm outline-none focus:border-[var(--accent)] focus:ring-1 focus:ring-[var(--accent)]"
      />
      <p className="text-[11px] text-muted">Enter to confirm · Shift+Enter for a new line</p>
    </div>
  );
}
