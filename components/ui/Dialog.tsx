"use client";
import { useEffect, useId, useRef, type FormEvent, type ReactNode } from "react";

/**
 * A modal dialog on the native <dialog> element: focus stays inside, Escape closes (unless told not to), the page
 * behind is inert. Content mounts only while open (so fields start empty each time); the first
 * element with `data-autofocus` receives focus.
 */
export function Dialog({
  open,
  onClose,
  title,
  children,
  testId,
  dismissible = true,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  testId?: string;
  /** false: Escape does not close it (an action under way must end in it, or its outcome is lost) */
  dismissible?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      // The first element marked data-autofocus (a note field before the confirm button).
      d.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    }
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onClose={() => {
        // a second Escape closes it whatever the page says (the browsers' close watchers): not
        // dismissible, it opens again (else it is shut while still open here, and never shown again)
        if (open && !dismissible) return ref.current?.showModal();
        if (open) onClose();
      }}
      onCancel={(e) => !dismissible && e.preventDefault()}
      className="m-auto w-[min(30rem,calc(100vw-2rem))] rounded-lg border border-default bg-[var(--bg)] p-0 text-[var(--fg)] shadow-xl backdrop:bg-black/40"
    >
      {open && (
        <div className="p-4">
          <h2 id={titleId} className="mb-3 text-base font-semibold">
            {title}
          </h2>
          {children}
        </div>
      )}
    </dialog>
  );
}

/** A yes/no question with optional extra fields (a note), a pending state and the server's error. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  pending = false,
  error,
  tone = "default",
  testId,
}: {
  open: boolean;
  title: ReactNode;
  children?: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending?: boolean;
  error?: string | null;
  tone?: "default" | "danger";
  testId?: string;
}) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!pending) onConfirm();
  };
  return (
    <Dialog open={open} onClose={onCancel} title={title} testId={testId} dismissible={!pending}>
      <form onSubmit={submit} className="space-y-3 text-sm">
        {children}
        {error && (
          <p role="alert" className="rounded border border-red-300 bg-red-50 px-2 py-1.5 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2 pt-1">
          <button type="button" onClick={onCancel} disabled={pending} className="rounded border border-default px-3 py-1.5 hover:bg-subtle disabled:opacity-60">
            Cancel
          </button>
          <button
            type="submit"
            disabled={pending}
            data-autofocus
            className={`rounded px-3 py-1.5 font-medium disabled:opacity-60 ${tone === "danger" ? "bg-red-700 text-white hover:bg-red-800" : "bg-[var(--accent)] text-[var(--bg)] hover:opacity-90"}`}
          >
            {pending ? "Working…" : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
