import type { ReactNode } from "react";

/** A titled card: the building block of dashboards. */
export function Panel({
  title,
  subtitle,
  action,
  children,
  className = "",
  testId,
  data,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  action?: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
  /** extra data-* attributes */
  data?: Record<`data-${string}`, string>;
}) {
  return (
    <section data-testid={testId} {...data} className={`flex min-w-0 flex-col rounded-lg border border-default bg-[var(--bg)] ${className}`}>
      <header className="flex items-start justify-between gap-3 border-b border-default px-4 py-2.5">
        <div className="min-w-0">
          <h2 className="text-sm font-semibold">{title}</h2>
          {subtitle && <p className="text-xs text-muted">{subtitle}</p>}
        </div>
        {action && <div className="shrink-0 text-xs">{action}</div>}
      </header>
      <div className="min-w-0 flex-1">{children}</div>
    </section>
  );
}

/** Placeholder rows while a panel loads. */
export function SkeletonRows({ rows = 5 }: { rows?: number }) {
  return (
    <div className="space-y-2 p-4" aria-hidden="true">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="h-4 animate-pulse rounded bg-subtle" style={{ width: `${90 - i * 9}%` }} />
      ))}
    </div>
  );
}

/** A short message in place of a panel's content (empty, or failed). */
export function PanelMessage({ children, tone = "muted" }: { children: ReactNode; tone?: "muted" | "error" }) {
  return (
    <p role={tone === "error" ? "status" : undefined} className={`px-4 py-6 text-center text-sm ${tone === "error" ? "text-red-600 dark:text-red-400" : "text-muted"}`}>
      {children}
    </p>
  );
}
