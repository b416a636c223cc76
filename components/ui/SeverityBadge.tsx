import { SEV_BG, SEV_BG_UNKNOWN } from "./severity";

/** Severity as colour and text (never colour alone). */
export function SeverityBadge({ severity, count }: { severity: string; count?: number }) {
  return (
    <span
      data-testid={`severity-${severity}`}
      className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium ${SEV_BG[severity] ?? SEV_BG_UNKNOWN}`}
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
        : status === "snoozed"
          ? "border-dashed border-sky-600 text-sky-700 dark:text-sky-400"
          : "border-[var(--border)] text-[var(--fg)]";
  return <span className={`inline-block rounded border px-1.5 py-0.5 text-xs ${style}`}>{status}</span>;
}
