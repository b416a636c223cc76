import { useQuery } from "@tanstack/react-query";
import { api } from "./client";
import type { Agent } from "./types";

/** Every agent's name, for filters (from GET /api/agents). */
export function useAgentNames() {
  return useQuery({
    queryKey: ["agents"],
    queryFn: async () => (await api.get<Agent[]>("/api/agents")).map((a) => a.agent_name),
    staleTime: 5 * 60_000,
  });
}
