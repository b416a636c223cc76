"use client";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { formatCount } from "@/components/ui/numbers";
import { TABS, type Tab } from "./params";
import type { TabCount } from "./queries";

const LABELS: Record<Tab, { label: string; title: string }> = {
  review: { label: "For review", title: "Open, and unassigned or assigned to you" },
  unresolved: { label: "Unresolved", title: "Open or acknowledged (snoozed ones wait in their own tab)" },
  acknowledged: { label: "Acknowledged", title: "Acknowledged, not yet resolved" },
  snoozed: { label: "Snoozed", title: "Set aside until a time, more occurrences or escalation; they wake by themselves" },
  resolved: { label: "Resolved", title: "Resolved" },
};

/**
 * The triage tabs: each is a link (the same view with `tab=…`, other filters kept), with the
 * number of interruptions it holds under the current filters.
 */
export function TriageTabs({ active, counts }: { active: Tab | null; counts: Record<Tab, TabCount | undefined> }) {
  const pathname = usePathname();
  const search = useSearchParams();
  const href = (tab: Tab) => {
    const q = new URLSearchParams(search.toString());
    // The tab stands for the status filters; selection, paging and a group's members start over.
    for (const k of ["tab", "status", "unresolved", "pages"]) q.delete(k);
    q.set("tab", tab);
    return `${pathname}?${q.toString()}`;
  };
  return (
    <nav aria-label="Triage" data-testid="triage-tabs" className="border-b border-default">
      <ul className="-mb-px flex flex-wrap gap-1">
        {TABS.map((t) => {
          const on = t === active;
          const c = counts[t];
          const n = c === undefined ? "…" : `${formatCount(c.n)}${c.more ? "+" : ""}`;
          return (
            <li key={t}>
              <Link
                href={href(t)}
                scroll={false}
                prefetch={false}
                aria-current={on ? "page" : undefined}
                title={LABELS[t].title}
                data-testid={`tab-${t}`}
                className={`inline-flex items-center gap-1.5 border-b-2 px-3 py-1.5 text-sm ${
                  on ? "border-[var(--accent)] font-medium text-[var(--fg)]" : "border-transparent text-muted hover:text-[var(--fg)]"
                }`}
              >
                {LABELS[t].label}
                <span data-testid="tab-count" className={`rounded-full px-1.5 text-xs tabular-nums ${on ? "bg-[var(--accent)] text-[var(--bg)]" : "bg-subtle"}`}>
                  {n}
                </span>
              </Link>
            </li>
          );
        })}
        {active && (
          <li className="ml-auto self-center text-xs text-muted" data-testid="tab-hint">
            {LABELS[active].title}
          </li>
        )}
      </ul>
    </nav>
  );
}
