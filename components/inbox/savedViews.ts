"use client";
// Saved views for the inbox's view menu: the list (with each view's unresolved count), its
// writes, the open view (`view=<id>` in the URL) and the current filters as a view's query.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createSerializer, parseAsString, useQueryState } from "nuqs";
import { api } from "@/components/api/client";
import type { SavedViewRecord } from "@/lib/api/contracts/views";
import { normalizeViewQuery } from "@/lib/domain/inboxQuery";
import { inboxParsers, inboxUrlKeys, type InboxParams } from "./params";
import { refreshAfterWrite } from "@/components/api/refresh";

export type SavedView = SavedViewRecord;

const KEY = ["views"] as const;
/** Counts move as interruptions arrive and are resolved: refreshed this often while shown. */
const REFRESH_MS = 30_000;

export function useSavedViews(enabled = true) {
  return useQuery({
    queryKey: KEY,
    queryFn: () => api.get<SavedView[]>("/api/views"),
    enabled,
    refetchInterval: REFRESH_MS,
    refetchIntervalInBackground: false,
  });
}

/** The id of the view the inbox was opened from (it stays while the filters are changed). */
export function useOpenViewId() {
  return useQueryState("view", parseAsString.withOptions({ history: "replace" }));
}

const serialize = createSerializer(inboxParsers, { urlKeys: inboxUrlKeys });

/** The inbox's filters, sort and grouping as a view stores them (canonical, so views compare). */
export function viewQueryOf(params: InboxParams): string {
  try {
    return normalizeViewQuery(serialize(params));
  } catch {
    return ""; // the URL state is always valid; a view of it would be too
  }
}

export type ViewChange =
  | { kind: "create"; name: string; query: string; shared: boolean }
  | { kind: "update"; id: string; name?: string; query?: string; shared?: boolean }
  | { kind: "delete"; id: string };

export function useViewChange() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (c: ViewChange): Promise<SavedView> => {
      if (c.kind === "create") return api.post<SavedView>("/api/views", { name: c.name, query: c.query, shared: c.shared });
      if (c.kind === "delete") return api.del<SavedView>(`/api/views/${encodeURIComponent(c.id)}`);
      const { id, kind: _kind, ...patch } = c;
      return api.post<SavedView>(`/api/views/${encodeURIComponent(id)}`, patch);
    },
    onSuccess: () => refreshAfterWrite(qc, { queryKey: KEY }),
  });
}
