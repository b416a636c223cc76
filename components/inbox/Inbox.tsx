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
import { GroupTable } from "./GroupTable";
import { InboxTable } from "./InboxTable";
import { useKeyboard } from "./keyboard";
import { SEVERITIES } from "@/lib/domain/interruptions";
import { nowNs } from "@/lib/domain/time";
import { activeTab, baseFilterQuery, compact, effectiveStatus, filterKey, filterQuery, timeWindow, useInboxParams, type SortKey } from "./params";
import { GROUP_LIMIT, TREND_BUCKETS, useGroups, useInterruptionPages, useNewSince, useRowAction, useTabCounts, useUnresolvedCount, type Group } from "./queries";
import { ResolveDialog } from "./ResolveDialog";
import { TriageTabs } from "./TriageTabs";

type Notice = { tone: "ok" | "error"; text: string; at: number };

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

  const visible = rows;

  // Grouped view: one row per fingerprint, counted by the server over the same filters.
  const grouped = params.group;
  const groupsQ = useGroups(filter, grouped);
  const groups = useMemo(() => groupsQ.data ?? [], [groupsQ.data]);
  const bucketLabel = bucketText(win.endNs - win.startNs, TREND_BUCKETS);

  const base = useMemo(() => baseFilterQuery(params, anchor.ns), [params, anchor.ns]);
  const tabCounts = useTabCounts(base);
  const tab = activeTab(params);
  const count = useUnresolvedCount(filter);
  const eff = effectiveStatus(params);
  const openWanted = eff.status.length === 0 || eff.status.includes("open");
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
  const viewKey = `${fk}|${anchor.ns}|${params.group}`;
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

  const focusable = grouped ? groups.length : visible.length;
  useEffect(() => {
    if (focused >= focusable) setFocused(focusable - 1);
  }, [focusable, focused]);

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
  const run = (r: InterruptionRecord, action: "acknowledge" | "resolve" | "assign", note?: string, assignee?: string | null) => {
    const id = r.interruption_id;
    setPending((s) => new Set(s).add(id));
    const done = () =>
      setPending((s) => {
        const n = new Set(s);
        n.delete(id);
        return n;
      });
    const what = `${r.interruption_type}${r.agent_name ? ` of ${r.agent_name}` : ""}`;
    rowAction.mutate(
      { id, action, note, assignee },
      {
        onSuccess: () => {
          if (action === "resolve") setResolving(null);
          say(
            "ok",
            action === "assign" ? (assignee ? `Assigned ${what} to you.` : `Unassigned ${what}.`) : `${action === "resolve" ? "Resolved" : "Acknowledged"} ${what}.`,
          );
        },
        onError: (e) => {
          // A resolve runs from its dialog, which stays open to show why it failed.
          if (action === "resolve") setResolveError(errorText(e));
          else say("error", `Could not ${action === "assign" ? (assignee ? "assign" : "unassign") : action}: ${errorText(e)}`);
        },
        onSettled: done,
      },
    );
  };
  const acknowledge = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot acknowledge interruptions.`);
    if (r.status !== "open") return say("ok", `Already ${r.status}.`);
    run(r, "acknowledge");
  };
  const askResolve = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot resolve interruptions.`);
    if (r.status === "resolved") return say("ok", "Already resolved.");
    setResolveError(null);
    setResolving(r);
  };
  /** "Assign to me" in one key; on one of mine it unassigns. */
  const assignToMe = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot assign interruptions.`);
    if (pending.has(r.interruption_id)) return;
    run(r, "assign", undefined, r.assignee === user.email ? null : user.email);
  };

  // Group actions: bulk by filter (the view's filters plus the fingerprint), after a confirmation.
  const groupLabel = (g: Group) => `${g.interruption_type}${g.agent_name ? ` · ${g.agent_name}` : ""}`;
  const groupAction = (g: Group, action: "acknowledge" | "resolve") => {
    if (!triage) return say("error", `Your role (${user.role}) cannot ${action} interruptions.`);
    const n = action === "acknowledge" ? g.by_status.open : g.by_status.open + g.by_status.acknowledged;
    if (n === 0) return say("ok", action === "acknowledge" ? "Nothing open in this group." : "Everything in this group is resolved.");
    const narrow = action === "acknowledge" ? { status: "open" } : { resolved: "false" };
    setBulk({ action, count: n, all: false, ids: [], group: { filter: compact({ ...filter, ...narrow, fingerprint: g.fingerprint }), label: groupLabel(g) } });
  };
  const showMembers = (g: Group) => void setParams({ group: false, fingerprint: [g.fingerprint], pages: null });

  // Bulk.
  const [bulk, setBulk] = useState<BulkIntent | null>(null);
  const total = count.data?.total ?? null;
  const selectedCount = selection.all ? (total ?? 0) : selection.ids.size;
  const toggle = (r: InterruptionRecord) =>
    setSelection((s) => {
      const ids = new Set(s.ids);
      if (ids.has(r.interruption_id)) ids.delete(r.interruption_id);
      else ids.add(r.interruption_id);
      return { ...s, ids, all: false };
    });
  const togglePage = () =>
    setSelection((s) => {
      const everyShown = rows.length > 0 && rows.every((r) => s.ids.has(r.interruption_id));
      return { ...s, all: false, ids: everyShown ? new Set() : new Set(rows.map((r) => r.interruption_id)) };
    });
  const clearSelection = () => setSelection((s) => ({ ...s, ids: new Set(), all: false }));

  const open = (i: number) => {
    if (grouped) {
      if (groups[i]) showMembers(groups[i]);
      return;
    }
    const r = visible[i];
    if (r) router.push(`/interruptions/${encodeURIComponent(r.interruption_id)}`);
  };
  const groupRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const focusRow = (i: number) => {
    if (!focusable) return;
    const next = Math.max(0, Math.min(focusable - 1, i));
    setFocused(next);
    const refs = grouped ? groupRefs : rowRefs;
    refs.current[next]?.focus();
    refs.current[next]?.scrollIntoView({ block: "nearest" });
  };

  const dialogOpen = resolving !== null || bulk !== null;
  const focusedRow = !grouped && focused >= 0 ? visible[focused] : undefined;
  const focusedGroup = grouped && focused >= 0 ? groups[focused] : undefined;
  useKeyboard({
    enabled: !dialogOpen,
    onMove: (d) => focusRow(focused < 0 ? 0 : focused + d),
    onOpen: () => focused >= 0 && open(focused),
    onAcknowledge: () => (focusedGroup ? groupAction(focusedGroup, "acknowledge") : focusedRow && acknowledge(focusedRow)),
    onResolve: () => (focusedGroup ? groupAction(focusedGroup, "resolve") : focusedRow && askResolve(focusedRow)),
    onAssign: () => focusedRow && assignToMe(focusedRow),
    onSelect: () => triage && focusedRow && toggle(focusedRow),
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

      <TriageTabs active={tab} counts={tabCounts} />

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

      {!triage ? (
        <p className="text-xs text-muted" data-testid="read-only-note">
          Read-only: your role ({user.role}) can view interruptions but not acknowledge, resolve or assign them.
        </p>
      ) : grouped ? (
        <p className="text-xs text-muted">Each row is one fingerprint (type + agent + model + error code). Group actions apply to every member that matches the filters.</p>
      ) : (
        <BulkBar
          selectedCount={selectedCount}
          all={selection.all}
          total={total}
          unresolvedOnly={eff.unresolved}
          onSelectAll={() => setSelection((s) => ({ ...s, all: true }))}
          onClear={clearSelection}
          onAction={(action) => setBulk({ action, count: selectedCount, all: selection.all, ids: [...selection.ids] })}
        />
      )}

      <div
        id="inbox-panel"
        className={`overflow-x-auto rounded-lg border border-default transition-opacity ${(grouped ? groupsQ.isPlaceholderData : list.isPlaceholderData) ? "opacity-60" : ""}`}
        aria-busy={grouped ? groupsQ.isFetching : list.isFetching}
      >
        {grouped ? (
          groupsQ.isError && !groups.length ? (
            <div role="alert" className="px-4 py-8 text-center text-sm">
              <p className="text-red-700 dark:text-red-300">Could not load groups: {errorText(groupsQ.error)}</p>
              <button type="button" onClick={() => void groupsQ.refetch()} className="mt-2 rounded border border-default px-2 py-1 text-xs hover:bg-subtle">
                Retry
              </button>
            </div>
          ) : groupsQ.isPending ? (
            <div className="space-y-2 p-4" aria-label="Loading groups">
              {Array.from({ length: 6 }, (_, i) => (
                <div key={i} className="h-5 animate-pulse rounded bg-subtle" />
              ))}
            </div>
          ) : groups.length === 0 ? (
            <EmptyState unresolvedOnly={eff.unresolved} />
          ) : (
            <GroupTable
              groups={groups}
              triage={triage}
              focused={focused}
              onFocusRow={setFocused}
              onShowMembers={showMembers}
              onAcknowledge={(g) => groupAction(g, "acknowledge")}
              onResolve={(g) => groupAction(g, "resolve")}
              bucketLabel={bucketLabel}
              rowRefs={groupRefs}
            />
          )
        ) : list.isError && !rows.length ? (
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
          <EmptyState unresolvedOnly={eff.unresolved} />
        ) : (
          <InboxTable
            rows={visible}
            sort={params.sort}
            order={params.order}
            onSort={onSort}
            triage={triage}
            me={user.email}
            selected={selection.ids}
            allMatching={selection.all}
            onToggle={toggle}
            onTogglePage={togglePage}
            focused={focused}
            onFocusRow={setFocused}
            onAcknowledge={acknowledge}
            onResolve={askResolve}
            onAssign={assignToMe}
            pending={pending}
            dimResolved={eff.unresolved}
            nowMs={nowMs}
            rowRefs={rowRefs}
          />
        )}
      </div>

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
            onClick={() => void setParams({ pages: loadedPages + 1 }, { history: "replace", scroll: false })}
            className="rounded-md border border-default px-3 py-1 text-sm text-[var(--fg)] hover:bg-subtle disabled:opacity-60"
          >
            {list.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        )}
        <span className="hidden md:inline">
          <Kbd>j</Kbd>/<Kbd>k</Kbd> move · <Kbd>o</Kbd> {grouped ? "members" : "open"} ·{" "}
          {triage && (
            <>
              <Kbd>a</Kbd> acknowledge · <Kbd>r</Kbd> resolve · {!grouped && (<><Kbd>m</Kbd> assign to me · <Kbd>x</Kbd> select · </>)}
            </>
          )}
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
        me={user.email}
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

function EmptyState({ unresolvedOnly }: { unresolvedOnly: boolean }) {
  return (
    <div className="px-4 py-10 text-center text-sm text-muted" data-testid="inbox-empty">
      <p className="font-medium text-[var(--fg)]">No interruptions match.</p>
      <p className="mt-1">
        {unresolvedOnly ? "Resolved interruptions are hidden (“Unresolved only”). " : ""}
        Try a wider time range or fewer filters.
      </p>
    </div>
  );
}

/** The width of one trend bucket, in words ("1 h", "5 min"). */
function bucketText(spanNs: bigint, buckets: number): string {
  const minutes = Number(spanNs / BigInt(buckets) / 60_000_000_000n);
  if (minutes >= 1440 && minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes >= 60) return `${Math.round(minutes / 60)} h`;
  return `${Math.max(1, minutes)} min`;
}

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-default px-1 font-mono text-[10px]">{children}</kbd>;
}
