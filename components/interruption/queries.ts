"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import type { InterruptionRecord } from "@/components/api/types";
import type { Activity as ActivityEntry } from "@/components/api/types";
import type { SnoozeBody } from "@/components/inbox/SnoozeDialog";
import { refreshAfterWrite } from "@/components/api/refresh";

const enc = encodeURIComponent;

export function useInterruption(id: string) {
  return useQuery({ queryKey: ["interruption", id], queryFn: () => api.get<InterruptionRecord>(`/api/interruptions/${enc(id)}`) });
}

export function useActivity(id: string) {
  return useQuery({ queryKey: ["interruption-activity", id], queryFn: () => api.get<ActivityEntry[]>(`/api/interruptions/${enc(id)}/activity`) });
}

export type TriageAction =
  | { action: "acknowledge" | "resolve" | "reopen"; note?: string }
  | { action: "assign"; assignee: string | null }
  | { action: "notes"; note: string }
  | { action: "snooze"; body: SnoozeBody };

/** One triage action on an interruption; refreshes the record, its activity and the lists. */
export function useTriage(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (a: TriageAction) => {
      const path = `/api/interruptions/${enc(id)}/${a.action}`;
      if (a.action === "assign") return api.post<unknown>(path, { assignee: a.assignee });
      if (a.action === "notes") return api.post<unknown>(path, { note: a.note });
      if (a.action === "snooze") return api.post<unknown>(path, a.body);
      return api.post<unknown>(path, a.note ? { note: a.note } : {});
    },
    onSettled: async () => {
      // the activity log may still be on its first load, read before this action (refresh.ts)
      await Promise.all([refreshAfterWrite(qc, { queryKey: ["interruption", id] }), refreshAfterWrite(qc, { queryKey: ["interruption-activity", id] })]);
      // Lists and counts elsewhere in the app (inbox, overview, sessions) are stale now too.
      void refreshAfterWrite(qc, { predicate: (q) => !["interruption", "interruption-activity", "call"].includes(String(q.queryKey[0])) });
    },
  });
}
