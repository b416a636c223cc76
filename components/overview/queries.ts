"use client";
// The overview's reads. Every panel asks for the same window (see range.ts); results of the
// previous window stay on screen while the next one loads.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import type { AgentCount, CountResponse, SessionCount, Timeseries as SeriesResponse, TypeCount } from "@/components/api/types";
import type { SessionSummary } from "@/components/sessions/types";
import { UNASSIGNED } from "./derive";
import type { Window } from "./range";
import { ACTIVE_STATUSES } from "@/lib/domain/interruptions";

export type { AgentCount, CountResponse, SessionCount, Timeseries as SeriesResponse } from "@/components/api/types";

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

/** The sessions the "most affected sessions" panel lists: only those, ranked by the server. */
export const TOP_SESSIONS = 25;

export function useTopSessions(w: Window) {
  return useQuery({
    queryKey: ["interruptions", "session-counts", "top", w.startNs, w.endNs],
    queryFn: () => api.get<SessionCount[]>("/api/interruptions/session-counts", { ...windowQuery(w), limit: TOP_SESSIONS, sort: "total" }),
    placeholderData: keepPreviousData,
  });
}

export function useAgentCounts(w: Window) {
  return useQuery({
    queryKey: ["interruptions", "agent-counts", w.startNs, w.endNs],
    queryFn: () => api.get<AgentCount[]>("/api/interruptions/agent-counts", windowQuery(w)),
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

/** The listed sessions themselves, to name the agent of each. */
export function useSessionsById(ids: string[] | undefined) {
  const list = (ids ?? []).filter((id) => id !== UNASSIGNED);
  return useQuery({
    queryKey: ["sessions", "by-id", list],
    queryFn: () => (list.length ? api.get<SessionSummary[]>("/api/sessions", { session_id: list.join(","), limit: list.length }) : Promise.resolve([])),
    enabled: ids !== undefined,
    placeholderData: keepPreviousData,
  });
}
