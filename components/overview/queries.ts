"use client";
// The overview's reads. Every panel asks for the same window (see range.ts); results of the
// previous window stay on screen while the next one loads.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import type { CountResponse, SessionCount, Timeseries as SeriesResponse, TypeCount } from "@/components/api/types";
import type { SessionSummary } from "@/components/sessions/types";
import type { Window } from "./range";
import { ACTIVE_STATUSES } from "@/lib/domain/interruptions";

export type { CountResponse, SessionCount, Timeseries as SeriesResponse } from "@/components/api/types";

// Open and acknowledged only: snoozed ones are set aside (SPEC §4), as in the inbox's unresolved views.
const windowQuery = (w: Window) => ({ start_ns: w.startNs, end_ns: w.endNs, status: ACTIVE_STATUSES.join(",") });

export function useCounts(w: Window) {
  return useQuery({
    queryKey: ["interruptions", "count", w.startNs, w.endNs],
    queryFn: () => api.get<CountResponse>("/api/interruptions/count", windowQuery(w)),
    placeholderData: keepPreviousData,
  });
}

export function useStats(w: Window) {
  return useQuery({
    queryKey: ["interruptions", "stats", w.startNs, w.endNs],
    queryFn: () => api.get<TypeCount[]>("/api/interruptions/stats", windowQuery(w)),
    placeholderData: keepPreviousData,
  });
}

export function useSessionCounts(w: Window) {
  return useQuery({
    queryKey: ["interruptions", "session-counts", w.startNs, w.endNs],
    queryFn: () => api.get<SessionCount[]>("/api/interruptions/session-counts", windowQuery(w)),
    placeholderData: keepPreviousData,
  });
}

export function useSeries(w: { startNs: string; endNs: string; buckets: number }) {
  return useQuery({
    queryKey: ["interruptions", "timeseries", w.startNs, w.endNs, w.buckets],
    queryFn: () => api.get<SeriesResponse>("/api/interruptions/timeseries", { start_ns: w.startNs, end_ns: w.endNs, buckets: w.buckets, group_by: "severity" }),
    placeholderData: keepPreviousData,
  });
}

// Sessions that have unresolved interruptions (any time), to name the agent of each session in
// the counts above. Every interruption counted in a window belongs to one of these.
export const OPEN_SESSIONS_LIMIT = 5000;

export function useOpenSessions(anchorMs: number) {
  return useQuery({
    queryKey: ["sessions", "with-open", anchorMs],
    queryFn: () => api.get<SessionSummary[]>("/api/sessions", { with_open: true, limit: OPEN_SESSIONS_LIMIT }),
    placeholderData: keepPreviousData,
  });
}
