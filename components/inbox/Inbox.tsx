"use client";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiRequestError } from "@/components/api/client";
import type { InterruptionRecord } from "@/components/api/types";
import { canTriage, useCurrentUser } from "@/components/shell/Providers";
import { formatCount } from "@/components/ui/numbers";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import { BulkBar, BulkDialog, type BulkIntent } from "./Bulk";
import { FilterBar, type FilterPatch } from "./FilterBar";
import { InboxTable } from "./InboxTable";
import { useKeyboard } from "./keyboard";
import { filterKey, filterQuery, SEVERITIES, timeWindow, useInboxParams, type SortKey } from "./params";
import { useInterruptionPages, useNewSince, useRowAction, useUnresolvedCount } from "./queries";
import { ResolveDialog } from "./ResolveDialog";

type Notice = { tone: "ok" | "error"; text: string; at: number };

const nowNs = () => BigInt(Date.now()) * 1_000_000n;
const errorText = (e: unknown) => (e instanceof ApiRequestError ? e.message : e instanceof Error ? e.message : String(e));
const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;

export function Inbox() {
  const router = useRouter();
  const user = useCurrentUser();
  const triage = canTriage(user);
  const [params, setParams] = useInboxParams();

  // The window's end is pinned when the view loads (and on refresh), so rows never jump; a new
  // filter re-pins it. Adjusted during render, so the first fetch already uses the right window.
  const fk = filterKey(params);
  const [anchor, setAnchor] = useState(() => ({ key: fk, ns: nowNs() }));
  if (anchor.key !== fk) setAnchor({ key: fk, ns: nowNs() });
  const filter = useMemo(() => filterQuery(params, anchor.ns), [params, anchor.ns]);
  const win = timeWindow(params, anchor.ns);

  const list = useInterruptionPages(filter, params);
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.rows) ?? [], [list.data]);
  const loadedPages = list.data?.pages.length ?? 0;

  // Grouped view: one row per fingerprint among the loaded rows (the newest in the current
  // order stands for its group; row actions and selection cover every member).
  const groups = useMemo(() => {
    if (!params.group) return null;
    const byPrint = new Map<string, InterruptionRecord[]>();
    for (const r of rows) {
      const g = byPrint.get(r.fingerprint);
      if (g) g.push(r);
      else byPrint.set(r.fingerprint, [r]);
    }
    return byPrint;
  }, [rows, params.group]);
  const visible = useMemo(() => (groups ? [...groups.values()].map((g) => g[0]) : rows), [groups, rows]);
  const membersOf = (r: InterruptionRecord) => groups?.get(r.fingerprint) ?? [r];
  const count = useUnresolvedCount(filter);
  const openWanted = params.status.length === 0 || params.status.includes("open");
  const openCount = useUnresolvedCount(filter, { status: "open" }, openWanted);

  // Newer events: anything past the newest row shown (or the pinned end) with the same filters.
  const settled = list.isSuccess && !list.isPlaceholderData;
  let since: bigint | null = null;
  if (settled && win.openEnded) {
    if (rows.length === 0) since = win.startNs;
    else if (params.sort === "time" && params.order === "desc") since = BigInt(rows[0].occurred_at_ns) + 1n;
    else since = anchor.ns + 1n;
  }
  const fresh = useNewSince(filter, since, win.limitNs);
  const newCount = fresh.data?.count ?? 0;

  // Selection (page ids, or "all N matching" by filter) and the focused row reset with the view.
  const viewKey = `${fk}|${anchor.ns}`;
  const [selection, setSelection] = useState({ key: viewKey, ids: new Set<string>(), all: false });
  const [focused, setFocused] = useState(-1);
  if (selection.key !== viewKey) {
    setSelection({ key: viewKey, ids: new Set(), all: false });
    setFocused(-1);
  }
  const rowRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const searchRef = useRef<HTMLInputElement>(null);

  const [notice, setNotice] = useState<Notice | null>(null);
  const say = useCallback((tone: Notice["tone"], text: string) => setNotice({ tone, text, at: Date.now() }), []);
  useEffect(() => {
    if (notice?.tone !== "ok") return;
    const t = setTimeout(() => setNotice(null), 6000);
    return () => clearTimeout(t);
  }, [notice]);

  const [nowMs, setNowMs] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNowMs(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);

  // "Load more" raises `pages` in the URL; this follows the Link header until that many are loaded
  // (so a copied link with pages=3 reopens with three pages).
  useEffect(() => {
    if (list.isFetching || list.isFetchNextPageError || !list.hasNextPage || list.isPlaceholderData) return;
    if (loadedPages > 0 && loadedPages < params.pages) void list.fetchNextPage();
  }, [list, loadedPages, params.pages]);

  useEffect(() => {
    if (focused >= visible.length) setFocused(visible.length - 1);
  }, [visible.length, focused]);

  const update = useCallback((patch: FilterPatch) => void setParams({ ...patch, pages: null }), [setParams]);
  const onSearch = useCallback((q: string) => void setParams({ q: q.trim() || null, pages: null }, { history: "replace" }), [setParams]);
  const onSort = (key: SortKey) =>
    void setParams(
      key === params.sort
        ? { order: params.order === "desc" ? "asc" : "desc", pages: null }
        : { sort: key, order: key === "time" || key === "severity" ? "desc" : "asc", pages: null },
    );
  const refresh = () => {
    setAnchor({ key: fk, ns: nowNs() });
    window.scrollTo({ top: 0, behavior: "smooth" });
  };

  // Row actions.
  const rowAction = useRowAction();
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const [resolving, setResolving] = useState<InterruptionRecord | null>(null);
  const [resolveError, setResolveError] = useState<string | null>(null);
  const run = (r: InterruptionRecord, action: "acknowledge" | "resolve", note?: string) => {
    const id = r.interruption_id;
    setPending((s) => new Set(s).add(id));
    const done = () =>
      setPending((s) => {
        const n = new Set(s);
        n.delete(id);
        return n;
      });
    rowAction.mutate(
      { id, action, note },
      {
        onSuccess: () => {
          if (action === "resolve") setResolving(null);
          say("ok", `${action === "resolve" ? "Resolved" : "Acknowledged"} ${r.interruption_type}${r.agent_name ? ` of ${r.agent_name}` : ""}.`);
        },
        onError: (e) => {
          // A resolve runs from its dialog, which stays open to show why it failed.
          if (action === "resolve") setResolveError(errorText(e));
          else say("error", `Could not ${action}: ${errorText(e)}`);
        },
        onSettled: done,
      },
    );
  };
  const acknowledge = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot acknowledge interruptions.`);
    const members = membersOf(r);
    if (members.length > 1) return setBulk({ action: "acknowledge", count: members.length, all: false, ids: members.map((m) => m.interruption_id), group: true });
    if (r.status !== "open") return say("ok", `Already ${r.status}.`);
    run(r, "acknowledge");
  };
  const askResolve = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot resolve interruptions.`);
    const members = membersOf(r);
    if (members.length > 1) return setBulk({ action: "resolve", count: members.length, all: false, ids: members.map((m) => m.interruption_id), group: true });
    if (r.status === "resolved") return say("ok", "Already resolved.");
    setResolveError(null);
    setResolving(r);
  };

  // Bulk.
  const [bulk, setBulk] = useState<BulkIntent | null>(null);
  const total = count.data?.total ?? null;
  const selectedCount = selection.all ? (total ?? 0) : selection.ids.size;
  const toggle = (r: InterruptionRecord) =>
    setSelection((s) => {
      const ids = new Set(s.ids);
      const members = membersOf(r).map((m) => m.interruption_id);
      const on = !members.every((id) => ids.has(id));
      for (const id of members) {
        if (on) ids.add(id);
        else ids.delete(id);
      }
      return { ...s, ids, all: false };
    });
  const togglePage = () =>
    setSelection((s) => {
      const everyShown = rows.length > 0 && rows.every((r) => s.ids.has(r.interruption_id));
      return { ...s, all: false, ids: everyShown ? new Set() : new Set(rows.map((r) => r.interruption_id)) };
    });
  const clearSelection = () => setSelection((s) => ({ ...s, ids: new Set(), all: false }));

  const open = (i: number) => {
    const r = visible[i];
    if (r) router.push(`/interruptions/${encodeURIComponent(r.interruption_id)}`);
  };
  const focusRow = (i: number) => {
    if (!visible.length) return;
    const next = Math.max(0, Math.min(visible.length - 1, i));
    setFocused(next);
    rowRefs.current[next]?.focus();
    rowRefs.current[next]?.scrollIntoView({ block: "nearest" });
  };

  const dialogOpen = resolving !== null || bulk !== null;
  useKeyboard({
    enabled: !dialogOpen,
    onMove: (d) => focusRow(focused < 0 ? 0 : focused + d),
    onOpen: () => focused >= 0 && open(focused),
    onAcknowledge: () => focused >= 0 && visible[focused] && acknowledge(visible[focused]),
    onResolve: () => focused >= 0 && visible[focused] && askResolve(visible[focused]),
    onSelect: () => triage && focused >= 0 && visible[focused] && toggle(visible[focused]),
    onSearch: () => {
      searchRef.current?.focus();
      searchRef.current?.select();
    },
    onEscape: () => (selection.ids.size || selection.all ? clearSelection() : undefined),
  });

  const showing = rows.length;
  const loading = list.isPending;

  return (
    <div className="space-y-3">
      <header className="flex flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Inbox</h1>
        <div className="flex items-center gap-2 text-sm" aria-live="polite">
          <span data-testid="inbox-total" className="font-medium tabular-nums">
            {total === null ? "…" : `${formatCount(total)} unresolved`}
          </span>
          {openWanted && openCount.data && (
            <span data-testid="inbox-open-count" className="text-muted tabular-nums">
              {formatCount(openCount.data.total)} open · {formatCount(Math.max(0, (total ?? 0) - openCount.data.total))} acknowledged
            </span>
          )}
        </div>
        <div data-testid="inbox-severity-counts" className="flex items-center gap-1">
          {count.data &&
            SEVERITIES.filter((s) => count.data.by_severity[s] > 0).map((s) => <SeverityBadge key={s} severity={s} count={count.data.by_severity[s]} />)}
        </div>
        <button
          type="button"
          onClick={refresh}
          title="Reload the list up to now"
          className="ml-auto rounded-md border border-default px-2 py-1 text-xs text-muted hover:bg-subtle hover:text-[var(--fg)]"
        >
          Refresh
        </button>
      </header>

      <FilterBar params={params} onChange={update} onSearch={onSearch} searchRef={searchRef} />

      {notice && (
        <div
          role={notice.tone === "error" ? "alert" : "status"}
          data-testid="inbox-notice"
          className={`flex items-start justify-between gap-3 rounded-md border px-3 py-2 text-sm ${
            notice.tone === "error"
              ? "border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
              : "border-green-300 bg-green-50 text-green-800 dark:border-green-900 dark:bg-green-950 dark:text-green-200"
          }`}
        >
          <span>{notice.text}</span>
          <button type="button" aria-label="Dismiss" onClick={() => setNotice(null)} className="opacity-70 hover:opacity-100">
            ×
          </button>
        </div>
      )}

      {newCount > 0 && (
        <button
          type="button"
          data-testid="new-banner"
          onClick={refresh}
          className="w-full rounded-md border border-[var(--accent)] bg-[color-mix(in_srgb,var(--accent)_10%,transparent)] px-3 py-1.5 text-sm font-medium text-[var(--fg)] hover:bg-[color-mix(in_srgb,var(--accent)_18%,transparent)]"
        >
          {fresh.data?.more ? `${newCount}+` : newCount} new {newCount === 1 && !fresh.data?.more ? "interruption" : "interruptions"} — show
        </button>
      )}

      {triage ? (
        <BulkBar
          selectedCount={selectedCount}
          all={selection.all}
          total={total}
          unresolvedOnly={params.unresolved}
          onSelectAll={() => setSelection((s) => ({ ...s, all: true }))}
          onClear={clearSelection}
          onAction={(action) => setBulk({ action, count: selectedCount, all: selection.all, ids: [...selection.ids] })}
        />
      ) : (
        <p className="text-xs text-muted" data-testid="read-only-note">
          Read-only: your role ({user.role}) can view interruptions but not acknowledge or resolve them.
        </p>
      )}

      <div className={`overflow-x-auto rounded-lg border border-default transition-opacity ${list.isPlaceholderData ? "opacity-60" : ""}`} aria-busy={list.isFetching}>
        {list.isError && !rows.length ? (
          <div role="alert" className="px-4 py-8 text-center text-sm">
            <p className="text-red-700 dark:text-red-300">Could not load interruptions: {errorText(list.error)}</p>
            <button type="button" onClick={() => void list.refetch()} className="mt-2 rounded border border-default px-2 py-1 text-xs hover:bg-subtle">
              Retry
            </button>
          </div>
        ) : loading ? (
          <div className="space-y-2 p-4" aria-label="Loading interruptions">
            {Array.from({ length: 8 }, (_, i) => (
              <div key={i} className="h-5 animate-pulse rounded bg-subtle" />
            ))}
          </div>
        ) : rows.length === 0 ? (
          <div className="px-4 py-10 text-center text-sm text-muted" data-testid="inbox-empty">
            <p className="font-medium text-[var(--fg)]">No interruptions match.</p>
            <p className="mt-1">
              {params.unresolved ? "Resolved interruptions are hidden (“Unresolved only”). " : ""}
              Try a wider time range or fewer filters.
            </p>
          </div>
        ) : (
          <InboxTable
            rows={visible}
            groupSize={groups ? (r) => membersOf(r).length : undefined}
            sort={params.sort}
            order={params.order}
            onSort={onSort}
            triage={triage}
            selected={selection.ids}
            allMatching={selection.all}
            onToggle={toggle}
            onTogglePage={togglePage}
            focused={focused}
            onFocusRow={setFocused}
            onAcknowledge={acknowledge}
            onResolve={askResolve}
            pending={pending}
            dimResolved={params.unresolved}
            nowMs={nowMs}
            rowRefs={rowRefs}
          />
        )}
      </div>

      <footer className="flex flex-wrap items-center justify-between gap-2 text-xs text-muted">
        <span data-testid="inbox-showing">
          {showing > 0 && (list.hasNextPage ? `Showing ${formatCount(showing)}` : `${plural(showing, "interruption")} shown`)}
          {groups && showing > 0 && ` in ${plural(groups.size, "group")}`}
          {list.isFetchNextPageError && <span className="ml-2 text-red-600 dark:text-red-400">Could not load more: {errorText(list.error)}</span>}
        </span>
        {list.hasNextPage && (
          <button
            type="button"
            disabled={list.isFetchingNextPage}
            onClick={() => void setParams({ pages: loadedPages + 1 }, { history: "replace", scroll: false })}
            className="rounded-md border border-default px-3 py-1 text-sm text-[var(--fg)] hover:bg-subtle disabled:opacity-60"
          >
            {list.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        )}
        <span className="hidden md:inline">
          <Kbd>j</Kbd>/<Kbd>k</Kbd> move · <Kbd>o</Kbd> open · {triage && (<><Kbd>a</Kbd> acknowledge · <Kbd>r</Kbd> resolve · <Kbd>x</Kbd> select · </>)}
          <Kbd>/</Kbd> search
        </span>
      </footer>

      <ResolveDialog
        row={resolving}
        pending={resolving !== null && pending.has(resolving.interruption_id)}
        error={resolveError}
        onCancel={() => setResolving(null)}
        onConfirm={(note) => {
          if (!resolving) return;
          setResolveError(null);
          run(resolving, "resolve", note);
        }}
      />
      <BulkDialog
        intent={bulk}
        filter={filter}
        onClose={() => setBulk(null)}
        onDone={(text) => {
          setBulk(null);
          clearSelection();
          say("ok", text);
        }}
      />
    </div>
  );
}

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-default px-1 font-mono text-[10px]">{children}</kbd>;
}
