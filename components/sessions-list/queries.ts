"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import { nextCursor, type SessionSummary } from "./types";

export type SessionFilter = { agent: string | null; withOpen: boolean; cursor: string | null; limit: number };

/** One page of `GET /api/sessions` and the cursor of the next (from the Link header). */
export function useSessionsPage(f: SessionFilter) {
  return useQuery({
    queryKey: ["sessions", "list", f.agent, f.withOpen, f.cursor, f.limit],
    queryFn: async () => {
      const { data, headers } = await api.getWithHeaders<SessionSummary[]>("/api/sessions", {
        agent_name: f.agent,
        with_open: f.withOpen ? true : undefined,
        cursor: f.cursor,
        limit: f.limit,
      });
      return { sessions: data, next: nextCursor(headers.get("link")) };
    },
    placeholderData: keepPreviousData,
  });
}

// Agent names for the filter. There is no agents route, so they come from the most recently
// active sessions (the agents anyone filters by are the ones that ran lately).
const AGENT_SAMPLE = 1000;

export function useAgentNames() {
  return useQuery({
    queryKey: ["sessions", "agent-names"],
    queryFn: async () => {
      const sessions = await api.get<SessionSummary[]>("/api/sessions", { limit: AGENT_SAMPLE });
      const names = new Set<string>();
      for (const s of sessions) if (s.agent_name) names.add(s.agent_name);
      return [...names].sort((a, b) => a.localeCompare(b));
    },
    staleTime: 5 * 60_000,
  });
}
