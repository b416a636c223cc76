"use client";
// Under the table: how much is shown, "Load more", and the keyboard shortcuts.
import { formatCount } from "@/components/ui/numbers";
import { useInbox } from "./context";
import { GROUP_LIMIT } from "./queries";
import { errorText } from "./useTriage";

const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;

export function InboxFooter() {
  const { view, actions } = useInbox();
  const { grouped, groups, list, rows } = view;
  const showing = rows.length;
  return (
    <footer className="flex flex-wrap items-center justify-between gap-2 text-xs text-muted">
      {grouped ? (
        <span data-testid="inbox-showing">
          {groups.length > 0 &&
            `${plural(groups.length, "group")} of ${plural(
              groups.reduce((n, g) => n + g.count, 0),
              "interruption",
            )}${groups.length >= GROUP_LIMIT ? ` (the ${GROUP_LIMIT} most recent groups)` : ""}`}
        </span>
      ) : (
        <span data-testid="inbox-showing">
          {showing > 0 && (list.hasNextPage ? `Showing ${formatCount(showing)}` : `${plural(showing, "interruption")} shown`)}
          {list.isFetchNextPageError && <span className="ml-2 text-red-600 dark:text-red-400">Could not load more: {errorText(list.error)}</span>}
        </span>
      )}
      {!grouped && list.hasNextPage && (
        <button
          type="button"
          disabled={list.isFetchingNextPage}
          onClick={view.loadMore}
          className="rounded-md border border-default px-3 py-1 text-sm text-[var(--fg)] hover:bg-subtle disabled:opacity-60"
        >
          {list.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      )}
      <span className="hidden md:inline">
        <Kbd>j</Kbd>/<Kbd>k</Kbd> move · <Kbd>o</Kbd> {grouped ? "members" : "open"} ·{" "}
        {actions.triage && (
          <>
            <Kbd>a</Kbd> acknowledge · <Kbd>r</Kbd> resolve · <Kbd>s</Kbd> snooze · {!grouped && (<><Kbd>m</Kbd> assign to me · <Kbd>x</Kbd> select · </>)}
          </>
        )}
        <Kbd>/</Kbd> search
      </span>
    </footer>
  );
}

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-default px-1 font-mono text-[10px]">{children}</kbd>;
}
