"use client";
// The session header's cost line: what the session's calls cost at list prices, by model, with
// calls of models that have no price named rather than guessed.
import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import { formatUsd } from "@/components/ui/money";
import { formatCount } from "@/components/ui/numbers";
import type { SessionSpend } from "@/lib/api/contracts/spend";

export function SessionCost({ sessionId, callCount }: { sessionId: string; callCount: number }) {
  const spend = useQuery({
    // the call count in the key: new calls of a live session refetch it
    queryKey: ["spend", "session", sessionId, callCount],
    queryFn: () => api.get<SessionSpend>(`/api/spend/sessions/${encodeURIComponent(sessionId)}`),
  });
  const s = spend.data;
  return (
    <p className="flex flex-wrap items-baseline gap-x-2 text-xs" data-testid="session-cost">
      <span className="w-24 text-muted">cost</span>
      {spend.isError ? (
        <span className="text-red-700 dark:text-red-300">could not load: {spend.error.message}</span>
      ) : !s ? (
        <span className="text-muted">…</span>
      ) : (
        <>
          <span className="font-medium tabular-nums" data-testid="session-cost-total">
            {s.priced_calls === 0 && s.calls > 0 ? "unknown price" : formatUsd(s.cost_usd)}
          </span>
          {s.by_model.length > 1 && (
            <span className="text-muted">
              ({s.by_model.map((m) => `${m.model ?? "no model"} ${m.cost_usd === null ? "unknown price" : formatUsd(m.cost_usd)}`).join(" · ")})
            </span>
          )}
          {s.unpriced_calls > 0 && s.priced_calls > 0 && (
            <span className="text-muted" data-testid="session-cost-unpriced">
              + {formatCount(s.unpriced_calls)} calls of {s.unpriced_models.join(", ")} at an unknown price
            </span>
          )}
        </>
      )}
    </p>
  );
}
