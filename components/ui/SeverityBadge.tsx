const STYLES: Record<string, string> = {
  critical: "bg-[var(--color-sev-critical)] text-white",
  high: "bg-[var(--color-sev-high)] text-white",
  medium: "bg-[var(--color-sev-medium)] text-white",
  low: "bg-[var(--color-sev-low)] text-white",
};

/** Severity as colour and text (never colour alone). */
export function SeverityBadge({ severity, count }: { severity: string; count?: number }) {
  return (
    <span
      data-testid={`severity-${severity}`}
      className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium ${STYLES[severity] ?? "bg-gray-500 text-white"}`}
    >
      {severity}
      {count !== undefined && <span className="tabular-nums">{count}</span>}
    </span>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const style =
    status === "resolved"
      ? "border-green-600 text-green-700 dark:text-green-400"
      : status === "acknowledged"
        ? "border-amber-600 text-amber-700 dark:text-amber-400"
        : "border-[var(--border)] text-[var(--fg)]";
  return <span className={`inline-block rounded border px-1.5 py-0.5 text-xs ${style}`}>{status}</span>;
}
