import { useQuery } from "@tanstack/react-query";
import { api } from "./client";

/** Every agent's name, for filters (from GET /api/agents). */
export function useAgentNames() {
  return useQuery({
    queryKey: ["agents"],
    queryFn: async () => (await api.get<{ agent_name: string }[]>("/api/agents")).map((a) => a.agent_name),
    staleTime: 5 * 60_000,
  });
}
