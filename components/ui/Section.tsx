import type { ReactNode } from "react";

/**
 * A titled section of a page. `band` (settings, configuration): the title, a description and
 * actions on a shaded header band above the body. `card` (detail pages): a plain card whose title
 * row carries the actions. With an `id`, the heading names the section (aria-labelledby).
 */
export function Section({
  title,
  description,
  actions,
  children,
  id,
  variant = "card",
  testId,
  data,
  bodyClassName,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  id?: string;
  variant?: "card" | "band";
  testId?: string;
  /** extra data-* attributes */
  data?: Record<`data-${string}`, string | undefined>;
  /** replaces the body's default spacing */
  bodyClassName?: string;
}) {
  const titleId = id ? `${id}-title` : undefined;
  if (variant === "band") {
    return (
      <section id={id} aria-labelledby={titleId} data-testid={testId} {...data} className="scroll-mt-4 rounded-lg border border-default">
        <header className="flex flex-wrap items-start justify-between gap-3 border-b border-default bg-subtle px-4 py-3">
          <div className="min-w-0">
            <h2 id={titleId} className="text-base font-semibold">
              {title}
            </h2>
            {description && <p className="mt-0.5 text-sm text-muted">{description}</p>}
          </div>
          {actions && <div className="flex shrink-0 items-center gap-2">{actions}</div>}
        </header>
        <div className={bodyClassName ?? "space-y-4 p-4"}>{children}</div>
      </section>
    );
  }
  return (
    <section id={id} aria-labelledby={titleId} data-testid={testId} {...data} className="rounded-lg border border-default bg-[var(--bg)] p-4">
      <div className="mb-3 flex items-center gap-2">
        <h2 id={titleId} className="text-sm font-semibold">
          {title}
        </h2>
        {actions && <div className="ml-auto flex items-center gap-2">{actions}</div>}
      </div>
      {description && <p className="-mt-2 mb-3 text-xs text-muted">{description}</p>}
      {bodyClassName ? <div className={bodyClassName}>{children}</div> : children}
    </section>
  );
}

/** A small heading inside a section ("Other fields", "Error message"). */
export function SubHeading({ children }: { children: ReactNode }) {
  return <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-muted">{children}</h3>;
}
