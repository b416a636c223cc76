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

export { useAgentNames } from "@/components/api/agents";
