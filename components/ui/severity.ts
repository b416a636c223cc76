// Severity order and colours for charts and custom marks (the badge itself is SeverityBadge).
// The colours mirror the `--color-sev-*` theme values in app/globals.css: SVG fills and inline
// styles use them directly so they never depend on which theme variables Tailwind emitted.
export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const SEVERITY_COLOR: Record<Severity, string> = {
  critical: "#b91c1c",
  high: "#c2410c",
  medium: "#a16207",
  low: "#2563eb",
};

/** 0 for critical … 3 for low; unknown values sort last. */
export function severityRank(severity: string): number {
  const i = (SEVERITIES as readonly string[]).indexOf(severity);
  return i < 0 ? SEVERITIES.length : i;
}

export const severityColor = (severity: string): string => SEVERITY_COLOR[severity as Severity] ?? "#6b7280";
