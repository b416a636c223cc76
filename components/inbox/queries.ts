// Server state for the inbox (TanStack Query): the paged list, the unresolved counts, the poll for
// newer events, the agents for the filter, and the triage writes.
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData, type QueryClient } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import type { InterruptionRecord, SeverityCounts } from "@/components/api/types";
import { compact, PAGE_SIZE, type FilterQuery, type InboxParams } from "./params";

export type Page = { rows: InterruptionRecord[]; next: string | null };
export type Count = { total: number; by_severity: SeverityCounts };

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
  return { rows: data, next: nextLink(headers.get("link")) };
}

export const inboxKeys = {
  list: (q: Record<string, string>) => ["inbox", "list", q] as const,
  count: (q: Record<string, string>) => ["inbox", "count", q] as const,
  fresh: (q: Record<string, string>) => ["inbox", "new", q] as const,
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
export const POLL_MS = 7_000;

/** Interruptions newer than `sinceNs` with the same filters (polled); `more` when past the limit. */
export function useNewSince(filter: FilterQuery, sinceNs: bigint | null, endNs?: bigint) {
  const end = endNs === undefined ? undefined : String(endNs);
  const query = compact({ ...filter, start_ns: String(sinceNs ?? 0n), end_ns: end, limit: String(NEW_LIMIT) });
  return useQuery({
    queryKey: inboxKeys.fresh(query),
    queryFn: async () => {
      const page = await fetchPage(LIST_PATH, query);
      return { count: page.rows.length, more: page.next !== null };
    },
    enabled: sinceNs !== null,
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

export type RowAction = { id: string; action: "acknowledge" | "resolve"; note?: string };

export function useRowAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, action, note }: RowAction) => {
      const body = note?.trim() ? { note: note.trim() } : {};
      const path = `/api/interruptions/${encodeURIComponent(id)}/${action}`;
      if (action === "acknowledge") return { id, patch: await api.post<InterruptionRecord>(path, body) };
      await api.post<{ status: "resolved" }>(path, body);
      return { id, patch: { status: "resolved", resolved: true } as Partial<InterruptionRecord> };
    },
    onSuccess: ({ id, patch }) => {
      patchRow(qc, id, patch);
      return qc.invalidateQueries({ predicate: (q) => notInboxRows(q.queryKey) });
    },
  });
}

export type BulkRequest = { action: "acknowledge" | "resolve"; note?: string } & ({ ids: string[] } | { filter: Record<string, string> });

export function useBulkAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ note, ...rest }: BulkRequest) =>
      api.post<{ matched: number; changed: number }>("/api/interruptions/bulk", note?.trim() ? { ...rest, note: note.trim() } : rest),
    // Bulk changes many rows at once: refetch everything so the view and the counts agree.
    onSuccess: () => qc.invalidateQueries(),
  });
}
