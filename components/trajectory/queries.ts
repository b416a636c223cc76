"use client";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import type { InterruptionRecord } from "@/components/api/types";
import { afterCursor } from "@/lib/trajectory/ns";
import type { CallDetail, CallSummary, SessionDetail } from "@/lib/trajectory/types";

export const CALL_PAGE_SIZE = 500;

const enc = encodeURIComponent;

export function useSession(id: string) {
  return useQuery({ queryKey: ["session", id], queryFn: () => api.get<SessionDetail>(`/api/sessions/${enc(id)}`) });
}

export function useSessionInterruptions(id: string) {
  return useQuery({ queryKey: ["session-interruptions", id], queryFn: () => api.get<InterruptionRecord[]>(`/api/sessions/${enc(id)}/interruptions`) });
}

/** A session's calls in time order, a page at a time (`after` = the last call of a page). */
export function useSessionCalls(id: string, conversationId: string | null) {
  return useInfiniteQuery({
    queryKey: ["session-calls", id, conversationId],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) =>
      api.get<CallSummary[]>(`/api/sessions/${enc(id)}/calls`, {
        conversation_id: conversationId ?? undefined,
        limit: CALL_PAGE_SIZE,
        after: pageParam ?? undefined,
      }),
    getNextPageParam: (last) => (last.length < CALL_PAGE_SIZE ? undefined : afterCursor(last[last.length - 1])),
    // Refetching every loaded page of a long session on focus would be wasteful.
    refetchOnWindowFocus: false,
    staleTime: 30_000,
  });
}

export function useCall(callId: string | null, enabled = true) {
  return useQuery({
    queryKey: ["call", callId],
    queryFn: () => api.get<CallDetail>(`/api/calls/${enc(callId!)}`),
    enabled: enabled && !!callId,
    staleTime: 60_000,
    retry: (n, e) => (e as { status?: number }).status !== 404 && n < 1,
  });
}
