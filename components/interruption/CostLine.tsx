"use client";
// What an interruption cost: its failed call, or for a dead loop or retry storm the calls it
// groups. A model without a price says so instead of showing a guess.
import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import { formatUsd } from "@/components/ui/money";
import { formatCount } from "@/components/ui/numbers";
import type { InterruptionSpend } from "@/lib/api/contracts/spend";

const WHAT: Record<InterruptionSpend["basis"], (n: number) => string> = {
  call: () => "the call",
  dead_loop: (n) => `the ${formatCount(n)} calls of the loop`,
  retry_storm: (n) => `the ${formatCount(n)} failed calls of the storm`,
  none: () => "",
};

export function CostLine({ id, occurrences }: { id: string; occurrences: number }) {
  const q = useQuery({
    // a grouped interruption's new occurrences add calls
    queryKey: ["spend", "interruption", id, occurrences],
    queryFn: () => api.get<InterruptionSpend>(`/api/spend/interruptions/${encodeURIComponent(id)}`),
  });
  const s = q.data;
  if (q.isError) return <p className="text-xs text-muted">Cost: could not load ({q.error.message})</p>;
  if (!s) return <p className="text-xs text-muted">Cost: …</p>;
  if (s.basis === "none" || s.calls === 0) {
    return (
      <p className="text-xs text-muted" data-testid="interruption-cost" data-basis={s.basis}>
        Cost: no LLM call of its own
      </p>
    );
  }
  const unknown = s.priced_calls === 0;
  return (
    <p className="text-xs" data-testid="interruption-cost" data-basis={s.basis}>
      <span className="text-muted">Cost of {WHAT[s.basis](s.calls)}: </span>
      <span className="font-medium tabular-nums" data-testid="interruption-cost-value">
        {unknown ? "unknown price" : formatUsd(s.cost_usd)}
      </span>
      {unknown && <span className="text-muted"> ({s.unpriced_models.join(", ")} not in the price table)</span>}
      {!unknown && s.unpriced_calls > 0 && (
        <span className="text-muted">
          {" "}
          + {formatCount(s.unpriced_calls)} calls of {s.unpriced_models.join(", ")} at an unknown price
        </span>
      )}
    </p>
  );
}
