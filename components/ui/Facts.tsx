import type { ReactNode } from "react";

/** A label and its value; `className`/`testId` go to the value. */
export type Fact = readonly [label: string, value: ReactNode, options?: { className?: string; testId?: string }];

/**
 * Labelled values as a definition list. `pairs` (the default): label and value columns, one fact a
 * line. `wrap`: short facts (a call's model, status, tokens …) side by side in a wrapping grid,
 * each value on one line (truncated, its full text as the title).
 */
export function Facts({
  items,
  layout = "pairs",
  className,
  labelClassName = "",
  minWidth = "13rem",
  mono = layout === "wrap",
  testId,
}: {
  items: readonly Fact[];
  layout?: "pairs" | "wrap";
  /** replaces the list's default spacing and text size */
  className?: string;
  labelClassName?: string;
  /** wrap: the narrowest column */
  minWidth?: string;
  /** wrap: values in a monospace font */
  mono?: boolean;
  testId?: string;
}) {
  if (layout === "wrap") {
    return (
      <dl data-testid={testId} className={`grid ${className ?? "gap-x-4 text-xs"}`} style={{ gridTemplateColumns: `repeat(auto-fill, minmax(${minWidth}, 1fr))` }}>
        {items.map(([k, v, o]) => (
          <div key={k} className="flex min-w-0 gap-1.5">
            <dt className={`shrink-0 text-muted ${labelClassName}`}>{k}</dt>
            <dd data-testid={o?.testId} className={`m-0 truncate ${mono ? "font-mono" : ""} ${o?.className ?? ""}`} title={typeof v === "string" ? v : undefined}>
              {v}
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return (
    <dl data-testid={testId} className={`grid grid-cols-[max-content_minmax(0,1fr)] ${className ?? "gap-x-4 gap-y-1 text-sm"}`}>
      {items.map(([k, v, o]) => (
        <div key={k} className="contents">
          <dt className={`text-muted ${labelClassName}`}>{k}</dt>
          <dd data-testid={o?.testId} className={`m-0 min-w-0 break-words ${o?.className ?? ""}`}>
            {v}
          </dd>
        </div>
      ))}
    </dl>
  );
}
