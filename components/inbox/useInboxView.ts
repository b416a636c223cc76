"use client";
// What the inbox shows: the URL's view, the pinned time window and the server state read for it
// (the list pages, the groups, the counts, the poll for newer events).
import { useCallback, useEffect, useMemo, useState } from "react";
import { nowNs } from "@/lib/domain/time";
import type { FilterPatch } from "./FilterBar";
import { activeTab, baseFilterQuery, effectiveStatus, filterKey, filterQuery, timeWindow, useInboxParams, type SortKey } from "./params";
import { TREND_BUCKETS, useActiveSnoozes, useGroups, useInterruptionPages, useArrivedSince, useTabCounts, useUnresolvedCount, type Group } from "./queries";

/**
 * The windows the inbox pinned lately, by view: coming back to the inbox (Back, "← Inbox") within
 * the query cache's lifetime (TanStack's 5 minutes) pins the same window again, so its rows come
 * from the cache as they were — not reloaded page by page for a window moved on, with rows that
 * arrived meanwhile pushed in between (the "N new" banner announces those).
 */
const pinnedLately = new Map<string, { ns: bigint; atMs: number }>();
const REPIN_AFTER_MS = 5 * 60_000;

function pinFor(key: string): bigint {
  const last = pinnedLately.get(key);
  return last && Date.now() - last.atMs < REPIN_AFTER_MS ? last.ns : nowNs();
}

function remember(key: string, ns: bigint): void {
  const last = pinnedLately.get(key);
  pinnedLately.delete(key); // most recent last
  // when it was pinned, not when it was last shown: a view revisited every few minutes is pinned anew after five
  pinnedLately.set(key, { ns, atMs: last?.ns === ns ? last.atMs : Date.now() });
  if (pinnedLately.size > 50) pinnedLately.delete(pinnedLately.keys().next().value!);
}

export function useInboxView() {
  const [params, setParams] = useInboxParams();

  // The window's end is pinned when the view loads (and on refresh), so rows never jump; a new
  // filter re-pins it. Adjusted during render, so the first fetch already uses the right window.
  const fk = filterKey(params);
  // Coming back to the inbox (a new mount) takes the window it had; a filter changed on the page
  // pins a fresh one (another tab's counts and rows as they are now, not as last seen there)
  const [anchor, setAnchor] = useState(() => ({ key: fk, ns: pinFor(fk) }));
  if (anchor.key !== fk) setAnchor({ key: fk, ns: nowNs() });
  useEffect(() => remember(anchor.key, anchor.ns), [anchor]);
  const filter = useMemo(() => filterQuery(params, anchor.ns), [params, anchor.ns]);
  const win = timeWindow(params, anchor.ns);

  const list = useInterruptionPages(filter, params);
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.rows) ?? [], [list.data]);
  const loadedPages = list.data?.pages.length ?? 0;
  const snoozes = useActiveSnoozes(rows.some((r) => r.status === "snoozed")).data;

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
  // asked for, not taken as the rest: the rest holds the snoozed ones too
  const ackWanted = openWanted && (eff.status.length === 0 || eff.status.includes("acknowledged"));
  const ackCount = useUnresolvedCount(filter, { status: "acknowledged" }, ackWanted);
  // After a filter change the previous filter's counts stay on screen (dimmed) until this one's
  // arrive; `total` is this filter's only, so that "Select all N" never offers a stale N.
  const countsPending = count.isPlaceholderData || (openWanted && openCount.isPlaceholderData) || (ackWanted && ackCount.isPlaceholderData);
  const total = count.data && !count.isPlaceholderData ? count.data.total : null;

  // New events: what was stored after the list was first read for this window, with the same
  // filters, whenever it occurred in the window (a late arrival, a sweep's finding about an
  // earlier turn) or after it. The first read's cursor is kept: a refetch after a bulk action
  // reads a later one, and what occurred after the pinned end would then never be announced.
  const settled = list.isSuccess && !list.isPlaceholderData;
  const readKey = `${fk}|${anchor.ns}`;
  const [firstRead, setFirstRead] = useState<{ key: string; through: string } | null>(null);
  const through = settled ? (list.data.pages[0]?.arrivedThrough ?? null) : null;
  if (through !== null && firstRead?.key !== readKey) setFirstRead({ key: readKey, through });
  const shown = useMemo(() => new Set(rows.map((r) => r.interruption_id)), [rows]);
  const fresh = useArrivedSince(filter, firstRead?.key === readKey ? firstRead.through : null, shown, win.openEnded ? win.limitNs : win.endNs);

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
  const loadMore = () => {
    // after a page failed to load the URL asks for it already (the effect above waits): ask again
    if (list.isFetchNextPageError && params.pages > loadedPages) return void list.fetchNextPage();
    void setParams({ pages: loadedPages + 1 }, { history: "replace", scroll: false });
  };
  const showMembers = (g: Group) => void setParams({ group: false, fingerprint: [g.fingerprint], pages: null });

  return {
    params,
    /** Selection and focus reset when this changes. */
    viewKey: `${fk}|${anchor.ns}|${params.group}`,
    filter,
    list,
    rows,
    snoozes,
    grouped,
    groupsQ,
    groups,
    bucketLabel,
    tab,
    tabCounts,
    count,
    total,
    countsPending,
    eff,
    openWanted,
    openCount,
    ackWanted,
    ackCount,
    fresh,
    newCount: fresh.data?.count ?? 0,
    nowMs,
    update,
    onSearch,
    onSort,
    refresh,
    loadMore,
    showMembers,
  };
}

export type InboxView = ReturnType<typeof useInboxView>;

/** The width of one trend bucket, in words ("1 h", "5 min"). */
function bucketText(spanNs: bigint, buckets: number): string {
  const minutes = Number(spanNs / BigInt(buckets) / 60_000_000_000n);
  if (minutes >= 1440 && minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes >= 60) return `${Math.round(minutes / 60)} h`;
  return `${Math.max(1, minutes)} min`;
}
