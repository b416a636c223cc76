"use client";
// The overview's spend: what each agent's calls cost over the range, and how much of it was
// wasted (calls that ended in interruptions, and dead loops). Models without a price are named,
// never guessed.
import Link from "next/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "@/components/api/client";
import { formatUsd, formatShare } from "@/components/ui/money";
import { formatCount } from "@/components/ui/numbers";
import { Panel, PanelMessage, SkeletonRows } from "@/components/ui/Panel";
import type { AgentSpendRecord, SpendByAgent } from "@/lib/api/contracts/spend";
import { inboxHref, RANGE_INFO, type Range, type Window } from "./range";

const plural = (n: number, one: string) => `${formatCount(n)} ${n === 1 ? one : `${one}s`}`;

function useSpend(w: Window) {
  return useQuery({
    queryKey: ["spend", w.startNs, w.endNs],
    queryFn: () => api.get<SpendByAgent>("/api/spend", { start_ns: w.startNs, end_ns: w.endNs }),
    placeholderData: keepPreviousData,
  });
}

export function SpendPanel({ win, range }: { win: Window; range: Range }) {
  const spend = useSpend(win);
  const t = spend.data?.total;
  return (
    <Panel
      testId="spend-panel"
      data={{ "data-ready": spend.data && !spend.isPlaceholderData ? "true" : "false" }}
      title="Spend"
      subtitle={`Calls that started in ${RANGE_INFO[range].long}, at list prices`}
      action={
        t && (
          <span className="tabular-nums">
            <span data-testid="spend-total" className="font-semibold">
              {formatUsd(t.cost_usd)}
            </span>{" "}
            spent ·{" "}
            <span data-testid="spend-wasted" className="font-semibold text-red-700 dark:text-red-300">
              {formatUsd(t.wasted_usd)}
            </span>{" "}
            wasted ({formatShare(t.wasted_usd, t.cost_usd)})
          </span>
        )
      }
    >
      {spend.data ? (
        <SpendTable data={spend.data} range={range} />
      ) : spend.error ? (
        <PanelMessage tone="error">Could not load spend: {spend.error.message}</PanelMessage>
      ) : (
        <SkeletonRows rows={3} />
      )}
    </Panel>
  );
}

function SpendTable({ data, range }: { data: SpendByAgent; range: Range }) {
  if (data.agents.length === 0) return <PanelMessage>No calls in {RANGE_INFO[range].long}.</PanelMessage>;
  const unpriced = [...new Set(data.agents.flatMap((a) => a.unpriced_models))];
  return (
    <>
      <table className="w-full text-sm" data-testid="spend-table">
        <thead>
          <tr className="border-b border-default text-left text-xs text-muted">
            <th className="px-4 py-1.5 font-medium">Agent</th>
            <th className="px-2 py-1.5 text-right font-medium">Calls</th>
            <th className="px-2 py-1.5 text-right font-medium">Spend</th>
            <th className="px-4 py-1.5 text-right font-medium">Wasted</th>
          </tr>
        </thead>
        <tbody>
          {data.agents.map((a) => (
            <AgentRow key={a.agent_name ?? ""} agent={a} range={range} />
          ))}
        </tbody>
      </table>
      {unpriced.length > 0 && (
        <p className="border-t border-default px-4 py-2 text-xs text-muted" data-testid="spend-unpriced">
          Unknown price: {plural(data.total.unpriced_calls, "call")} of {unpriced.join(", ")} {data.total.unpriced_calls === 1 ? "is" : "are"} not in these sums. Add the models to <code>pricing.models</code> in the configuration.
        </p>
      )}
    </>
  );
}

function AgentRow({ agent: a, range }: { agent: AgentSpendRecord; range: Range }) {
  const name = a.agent_name ?? "(no agent name)";
  const wastedTitle = `Failed calls ${formatUsd(a.failed_usd)} (${formatCount(a.failed_calls)}) · dead loops ${formatUsd(a.loop_usd)} (${formatCount(a.loop_calls)})`;
  return (
    <tr className="border-b border-default last:border-0" data-testid="spend-agent" data-agent={name}>
      <td className="max-w-0 truncate px-4 py-1.5">
        {a.agent_name ? (
          <Link href={inboxHref({ agent_name: a.agent_name }, range)} className="hover:underline">
            {name}
          </Link>
        ) : (
          <span className="text-muted">{name}</span>
        )}
      </td>
      <td className="px-2 py-1.5 text-right tabular-nums">{formatCount(a.calls)}</td>
      <td className="px-2 py-1.5 text-right tabular-nums" data-testid="agent-spend">
        {a.priced_calls === 0 && a.calls > 0 ? <span className="text-muted">unknown price</span> : formatUsd(a.cost_usd)}
        {a.unpriced_calls > 0 && a.priced_calls > 0 && (
          <span className="text-muted" title={`${plural(a.unpriced_calls, "call")} of ${a.unpriced_models.join(", ")} without a price`}>
            {" "}
            +?
          </span>
        )}
      </td>
      <td className="px-4 py-1.5 text-right tabular-nums" data-testid="agent-wasted" title={wastedTitle}>
        {a.wasted_calls === 0 ? (
          <span className="text-muted">—</span>
        ) : a.wasted_unpriced_calls === a.wasted_calls ? (
          <span className="text-muted">unknown price</span>
        ) : (
          <>
            {formatUsd(a.wasted_usd)}
            {a.wasted_unpriced_calls > 0 && <span className="text-muted"> +?</span>}
          </>
        )}
        {a.wasted_calls > 0 && <span className="ml-1 text-xs text-muted">{plural(a.wasted_calls, "call")}</span>}
      </td>
    </tr>
  );
}
