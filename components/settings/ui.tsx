"use client";
// Small building blocks shared by the settings sections (the section itself is
// components/ui/Section): buttons, fields, a confirmation dialog (native <dialog>, so focus and
// Escape behave) and a copy button.
import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ReactNode } from "react";

type Variant = "primary" | "secondary" | "danger" | "ghost";
const VARIANTS: Record<Variant, string> = {
  primary: "bg-[var(--accent)] text-white border border-transparent hover:opacity-90",
  secondary: "border border-default bg-[var(--bg)] hover:bg-subtle",
  danger: "border border-red-600/60 text-red-700 hover:bg-red-600 hover:text-white dark:text-red-400 dark:hover:text-white",
  ghost: "border border-transparent text-muted hover:text-[var(--fg)] hover:bg-subtle",
};

export function Button({ variant = "secondary", small, className = "", type = "button", ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; small?: boolean }) {
  const size = small ? "px-2 py-0.5 text-xs" : "px-3 py-1.5 text-sm";
  return (
    <button
      type={type}
      className={`inline-flex items-center justify-center gap-1 rounded font-medium whitespace-nowrap transition-colors disabled:cursor-not-allowed disabled:opacity-50 ${size} ${VARIANTS[variant]} ${className}`}
      {...props}
    />
  );
}

export const inputClass =
  "w-full rounded border border-default bg-[var(--bg)] px-2 py-1.5 text-sm placeholder:text-[var(--fg-muted)] focus:border-[var(--accent)] focus:outline-none focus:ring-1 focus:ring-[var(--accent)]";

/** A labelled control; the hint sits outside the label so it does not become part of the control's name. */
export function Field({ label, hint, children, className = "" }: { label: string; hint?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <div className={className}>
      <label className="block">
        <span className="mb-1 block text-sm font-medium">{label}</span>
        {children}
      </label>
      {hint && <p className="mt-1 text-xs text-muted">{hint}</p>}
    </div>
  );
}

export function ErrorText({ children, testId }: { children: ReactNode; testId?: string }) {
  if (!children) return null;
  return (
    <p role="alert" data-testid={testId} className="text-sm text-red-700 dark:text-red-400">
      {children}
    </p>
  );
}

export function Notice({ tone = "info", children, testId }: { tone?: "info" | "warning" | "success"; children: ReactNode; testId?: string }) {
  const tones = {
    info: "border-default bg-subtle",
    warning: "border-amber-500/60 bg-amber-500/10",
    success: "border-green-600/50 bg-green-600/10",
  };
  return (
    <div data-testid={testId} className={`rounded border px-3 py-2 text-sm ${tones[tone]}`}>
      {children}
    </div>
  );
}

export function Chip({ children, tone = "neutral", testId }: { children: ReactNode; tone?: "neutral" | "green" | "amber" | "gray" | "accent"; testId?: string }) {
  const tones = {
    neutral: "border-default",
    green: "border-green-600/60 text-green-700 dark:text-green-400",
    amber: "border-amber-600/60 text-amber-700 dark:text-amber-400",
    gray: "border-default text-muted",
    accent: "border-[var(--accent)] text-[var(--accent)]",
  };
  return (
    <span data-testid={testId} className={`inline-block rounded border px-1.5 py-px text-xs whitespace-nowrap ${tones[tone]}`}>
      {children}
    </span>
  );
}

/** A modal confirmation; `children` explains what happens. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger,
  busy,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-default bg-[var(--bg)] p-0 text-[var(--fg)] shadow-xl backdrop:bg-black/40"
    >
      {open && (
        <form
          method="dialog"
          className="space-y-3 p-4"
          onSubmit={(e) => {
            e.preventDefault();
            onConfirm();
          }}
        >
          <h3 id={titleId} className="text-base font-semibold">
            {title}
          </h3>
          {children && <div className="space-y-2 text-sm">{children}</div>}
          <ErrorText>{error}</ErrorText>
          <div className="flex justify-end gap-2 pt-1">
            <Button onClick={onCancel} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant={danger ? "danger" : "primary"} disabled={busy} autoFocus>
              {busy ? "Working…" : confirmLabel}
            </Button>
          </div>
        </form>
      )}
    </dialog>
  );
}

/** Copies `text`; falls back to a hidden textarea where the Clipboard API is unavailable (plain http). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);
  async function copy() {
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(text);
      } else {
        const area = document.createElement("textarea");
        area.value = text;
        area.setAttribute("readonly", "");
        area.style.position = "fixed";
        area.style.opacity = "0";
        document.body.appendChild(area);
        area.select();
        const ok = document.execCommand("copy");
        area.remove();
        if (!ok) throw new Error("copy refused");
      }
      setState("copied");
    } catch {
      setState("failed");
    }
  }
  return (
    <Button onClick={copy} aria-live="polite">
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select and copy" : label}
    </Button>
  );
}

/** A random password for the "Generate" buttons (18 random bytes, base64url: 24 characters). */
export function randomPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** A create form's error line and its submit / cancel buttons. */
export function FormFooter({ error, errorTestId, pending, submit, pendingLabel, onCancel, cancelLabel = "Cancel" }: {
  error: string | null;
  errorTestId?: string;
  pending: boolean;
  submit: string;
  pendingLabel: string;
  onCancel: () => void;
  cancelLabel?: string;
}) {
  return (
    <>
      <ErrorText testId={errorTestId}>{error}</ErrorText>
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? pendingLabel : submit}
        </Button>
        <Button onClick={onCancel} disabled={pending}>
          {cancelLabel}
        </Button>
      </div>
    </>
  );
}
