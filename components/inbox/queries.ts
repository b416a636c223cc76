// Server state for the inbox (TanStack Query): the paged list, the unresolved counts, the poll for
// newer events, the agents for the filter, and the triage writes.
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData, type QueryClient } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import type { BulkResult, CountResponse, GroupSnoozeResult, InterruptionGroup, InterruptionRecord, ResolveResult, SnoozeRecord } from "@/components/api/types";
import { compact, PAGE_SIZE, TAB_QUERY, type FilterQuery, type InboxParams, type Tab } from "./params";
import type { SnoozeBody } from "./SnoozeDialog";
import { refreshAfterWrite } from "@/components/api/refresh";

/** `arrivedThrough`: a first page's X-Arrived-Through, the cursor of what arrives after it. */
export type Page = { rows: InterruptionRecord[]; next: string | null; arrivedThrough: string | null };
export type Count = CountResponse;

const LIST_PATH = "/api/interruptions";

/** The `rel="next"` target of a Link header, when it is one of our own list URLs. */
export function nextLink(header: string | null): string | null {
  const m = header ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(header) : null;
  if (!m) return null;
  const target = m[1].startsWith("http") ? new URL(m[1]).pathname + new URL(m[1]).search : m[1];
  return target.startsWith(`${LIST_PATH}?`) ? target : null;
}

async function fetchPage(path: string, query?: Record<string, string>): Promise<Page> {
  const { data, headers } = await api.getWithHeaders<InterruptionRecord[]>(path, query);
  return { rows: data, next: nextLink(headers.get("link")), arrivedThrough: headers.get("x-arrived-through") };
}

export const inboxKeys = {
  list: (q: Record<string, string>) => ["inbox", "list", q] as const,
  count: (q: Record<string, string>) => ["inbox", "count", q] as const,
  fresh: (q: Record<string, string>) => ["inbox", "new", q] as const,
  resolvedCount: (q: Record<string, string>) => ["inbox", "resolved-count", q] as const,
  groups: (q: Record<string, string>) => ["inbox", "groups", q] as const,
};

export function useInterruptionPages(filter: FilterQuery, p: Pick<InboxParams, "sort" | "order">) {
  const query = compact({ ...filter, sort: p.sort, order: p.order, limit: String(PAGE_SIZE) });
  return useInfiniteQuery({
    queryKey: inboxKeys.list(query),
    queryFn: ({ pageParam }) => (pageParam ? fetchPage(pageParam) : fetchPage(LIST_PATH, query)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    // The window is fixed: refetching on focus would only make rows jump under the cursor.
    refetchOnWindowFocus: false,
    staleTime: Infinity,
    // A new filter or a refresh keeps the old rows on screen (dimmed) until the new ones arrive.
    placeholderData: keepPreviousData,
  });
}

/** Unresolved counts for the same filter (the count route ignores resolved rows). */
export function useUnresolvedCount(filter: FilterQuery, extra: Record<string, string> = {}, enabled = true) {
  const query = compact({ ...filter, ...extra });
  return useQuery({
    queryKey: inboxKeys.count(query),
    queryFn: () => api.get<Count>("/api/interruptions/count", query),
    enabled,
    placeholderData: keepPreviousData,
  });
}

const NEW_LIMIT = 100;
/** The "N new" banner shows what any server process stored within 5 s (a poll, then the query). */
export const POLL_MS = 4_000;

/**
 * Interruptions with the same filters stored after `arrivedThrough` (a list's cursor), whenever
 * they occurred, up to `endNs` (absent: up to now), that `shown` does not hold (a refetch of the
 * list may have brought them in); polled. `more` when past the limit.
 */
export function useArrivedSince(filter: FilterQuery, arrivedThrough: string | null, shown: ReadonlySet<string>, endNs?: bigint) {
  const end = endNs === undefined ? undefined : String(endNs);
  const query = compact({ ...filter, end_ns: end, arrived_after_ns: arrivedThrough ?? undefined, limit: String(NEW_LIMIT) });
  return useQuery({
    queryKey: inboxKeys.fresh(query),
    queryFn: async () => {
      const page = await fetchPage(LIST_PATH, query);
      return { ids: page.rows.map((r) => r.interruption_id), more: page.next !== null };
    },
    select: (d) => ({ count: d.ids.filter((id) => !shown.has(id)).length, more: d.more }),
    enabled: arrivedThrough !== null,
    refetchInterval: POLL_MS,
    refetchIntervalInBackground: false,
    staleTime: 0,
  });
}

export { useAgentNames } from "@/components/api/agents";

/** Rewrites one row wherever the inbox lists hold it (so it changes in place, without a jump). */
function patchRow(qc: QueryClient, id: string, patch: Partial<InterruptionRecord>) {
  qc.setQueriesData<InfiniteData<Page>>({ queryKey: ["inbox", "list"] }, (data) =>
    data
      ? { ...data, pages: data.pages.map((pg) => ({ ...pg, rows: pg.rows.map((r) => (r.interruption_id === id ? { ...r, ...patch } : r)) })) }
      : data,
  );
}

/** Everything but the inbox's own row lists (counts here, and any other page's data). */
const notInboxRows = (key: readonly unknown[]) => !(key[0] === "inbox" && (key[1] === "list" || key[1] === "new"));

/** A row's action; `reopen` wakes a snoozed one by hand. */
export type RowAction = { id: string; action: "acknowledge" | "resolve" | "assign" | "reopen"; note?: string; assignee?: string | null };

export function useRowAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, action, note, assignee }: RowAction) => {
      const body = note?.trim() ? { note: note.trim() } : {};
      const path = `/api/interruptions/${encodeURIComponent(id)}/${action}`;
      if (action === "assign") return { id, patch: await api.post<InterruptionRecord>(path, { ...body, assignee: assignee ?? null }) };
      if (action === "acknowledge" || action === "reopen") return { id, patch: await api.post<InterruptionRecord>(path, body) };
      await api.post<ResolveResult>(path, body);
      return { id, patch: { status: "resolved", resolved: true } as Partial<InterruptionRecord> };
    },
    onSuccess: ({ id, patch }) => {
      patchRow(qc, id, patch);
      return refreshAfterWrite(qc, { predicate: (q) => notInboxRows(q.queryKey) });
    },
  });
}

export type BulkRequest = { action: "acknowledge" | "resolve" | "assign"; note?: string; assignee?: string | null } & (
  | { ids: string[] }
  | { filter: Record<string, string> }
);

export function useBulkAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ note, ...rest }: BulkRequest) =>
      api.post<BulkResult>("/api/interruptions/bulk", note?.trim() ? { ...rest, note: note.trim() } : rest),
    // Bulk changes many rows at once: refetch everything so the view and the counts agree.
    onSuccess: () => refreshAfterWrite(qc),
  });
}

export type TabCount = { n: number; more: boolean };

function useTabCount(query: Record<string, string>): TabCount | undefined {
  return useQuery({
    queryKey: inboxKeys.count(query),
    queryFn: () => api.get<Count>("/api/interruptions/count", query),
    placeholderData: keepPreviousData,
    select: (c): TabCount => ({ n: c.total, more: false }),
  }).data;
}

/** The triage tabs' counts for the same filters (the count route counts unresolved rows only). */
export function useTabCounts(base: FilterQuery): Record<Tab, TabCount | undefined> {
  const q = (tab: Tab) => compact({ ...base, ...TAB_QUERY[tab] });
  const review = useTabCount(q("review"));
  const unresolved = useTabCount(q("unresolved"));
  const acknowledged = useTabCount(q("acknowledged"));
  const snoozed = useTabCount(q("snoozed")); // snoozed rows are unresolved: the count route counts them
  // Resolved rows: the groups route counts every status, so the sum of its counts is exact
  // (a lower bound, shown with "+", only past GROUP_CAP fingerprints).
  const rq = compact({ ...q("resolved"), limit: String(GROUP_CAP), buckets: "1" });
  const resolved = useQuery({
    queryKey: inboxKeys.resolvedCount(rq),
    queryFn: () => api.get<Group[]>("/api/interruptions/groups", rq),
    placeholderData: keepPreviousData,
    select: (gs): TabCount => ({ n: gs.reduce((sum, g) => sum + g.count, 0), more: gs.length >= GROUP_CAP }),
  }).data;
  return { review, unresolved, acknowledged, snoozed, resolved };
}

const GROUP_CAP = 5000;
export const GROUP_LIMIT = 200;
export const TREND_BUCKETS = 24;

export type Group = InterruptionGroup;

/** The grouped view: one entry per fingerprint among the interruptions matching the filters. */
export function useGroups(filter: FilterQuery, enabled: boolean) {
  const query = compact({ ...filter, limit: String(GROUP_LIMIT), buckets: String(TREND_BUCKETS) });
  return useQuery({
    queryKey: inboxKeys.groups(query),
    queryFn: () => api.get<Group[]>("/api/interruptions/groups", query),
    enabled,
    refetchOnWindowFocus: false,
    placeholderData: keepPreviousData,
  });
}

/** What a snooze applies to: one row (changed in place), a selection (ids or "all matching"), or a fingerprint group. */
export type SnoozeTarget =
  | { kind: "row"; row: InterruptionRecord }
  | { kind: "selection"; count: number; ids: string[] | null; filter: Record<string, string> | null }
  | { kind: "group"; group: Group };

export type SnoozeOutcome = { kind: "row"; record: InterruptionRecord } | { kind: "selection"; result: BulkResult } | { kind: "group"; result: GroupSnoozeResult };

export function useSnooze() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ target, body }: { target: SnoozeTarget; body: SnoozeBody }): Promise<SnoozeOutcome> => {
      if (target.kind === "row") {
        return { kind: "row", record: await api.post<InterruptionRecord>(`/api/interruptions/${encodeURIComponent(target.row.interruption_id)}/snooze`, body) };
      }
      if (target.kind === "group") return { kind: "group", result: await api.post<GroupSnoozeResult>("/api/snoozes", { fingerprint: target.group.fingerprint, ...body }) };
      const which = target.ids ? { ids: target.ids } : { filter: target.filter };
      return { kind: "selection", result: await api.post<BulkResult>("/api/interruptions/bulk", { action: "snooze", snooze: body, ...which }) };
    },
    onSuccess: (out) => {
      // one row changes in place (no jump); a selection or a group refetches everything
      if (out.kind !== "row") return refreshAfterWrite(qc);
      patchRow(qc, out.record.interruption_id, out.record);
      return refreshAfterWrite(qc, { predicate: (q) => notInboxRows(q.queryKey) });
    },
  });
}

/** The active snoozes by id (what wakes each snoozed row), read only while snoozed rows are shown. */
export function useActiveSnoozes(enabled: boolean) {
  return useQuery({
    queryKey: ["inbox", "snoozes"],
    queryFn: () => api.get<SnoozeRecord[]>("/api/snoozes", { active: "true", limit: "5000" }),
    enabled,
    select: (list) => new Map(list.map((s) => [s.id, s])),
    placeholderData: keepPreviousData,
  });
}
