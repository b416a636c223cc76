/** Short labelled values (a call's model, status, tokens …) in a wrapping grid. */
export function Facts({ items, minWidth = "13rem", className = "" }: { items: readonly (readonly [string, string])[]; minWidth?: string; className?: string }) {
  return (
    <dl className={`grid gap-x-4 text-xs ${className}`} style={{ gridTemplateColumns: `repeat(auto-fill, minmax(${minWidth}, 1fr))` }}>
      {items.map(([k, v]) => (
        <div key={k} className="flex min-w-0 gap-1.5">
          <dt className="shrink-0 text-muted">{k}</dt>
          <dd className="m-0 truncate font-mono" title={v}>
            {v}
          </dd>
        </div>
      ))}
    </dl>
  );
}
