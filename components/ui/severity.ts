// How severities look: colours and class names (the scale itself, its order and rank live in
// lib/domain/interruptions.ts). The colours mirror the `--color-sev-*` theme values in
// app/globals.css: SVG fills and inline styles use them directly so they never depend on which
// theme variables Tailwind emitted. Class names are written out in full so Tailwind generates them.
import type { Severity } from "@/lib/domain/interruptions";

export const SEVERITY_COLOR: Record<Severity, string> = {
  critical: "#b91c1c",
  high: "#c2410c",
  medium: "#a16207",
  low: "#2563eb",
};

export const severityColor = (severity: string): string => SEVERITY_COLOR[severity as Severity] ?? "#6b7280";

/** A filled mark (badges, chips): background and text. */
export const SEV_BG: Record<string, string> = {
  critical: "bg-sev-critical text-white",
  high: "bg-sev-high text-white",
  medium: "bg-sev-medium text-white",
  low: "bg-sev-low text-white",
};
export const SEV_BG_UNKNOWN = "bg-gray-500 text-white";

/** A left edge in the severity's colour. */
export const SEV_BORDER: Record<string, string> = {
  critical: "border-l-sev-critical",
  high: "border-l-sev-high",
  medium: "border-l-sev-medium",
  low: "border-l-sev-low",
};

/** SVG fills through the theme variables. */
export const SEV_FILL: Record<string, string> = {
  critical: "var(--color-sev-critical)",
  high: "var(--color-sev-high)",
  medium: "var(--color-sev-medium)",
  low: "var(--color-sev-low)",
};
