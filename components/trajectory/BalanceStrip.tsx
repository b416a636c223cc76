"use client";
import type { BalanceStep } from "@/lib/trajectory/balance";

/**
 * The running tool-call balance after each message, as a step chart: safe cut points (the
 * balance falling back to 0) are marked, and the part before `from` (not shown) is dimmed.
 */
export function BalanceStrip({ steps, inputCount, from, dangling }: { steps: BalanceStep[]; inputCount: number; from: number; dangling: number }) {
  if (!steps.length) return null;
  const max = Math.max(1, ...steps.map((s) => s.balance));
  const min = Math.min(0, ...steps.map((s) => s.balance));
  const h = 36;
  const w = Math.max(steps.length * 14, 160);
  const y = (b: number) => 4 + ((max - b) / (max - min || 1)) * (h - 8);
  const step = w / steps.length;
  let d = `M 0 ${y(0)}`;
  steps.forEach((s, i) => {
    d += ` V ${y(s.balance)} H ${(i + 1) * step}`;
  });
  const cuts = steps.filter((s) => s.safeCut);
  const last = steps[steps.length - 1];
  return (
    <figure className="m-0" data-testid="balance-strip">
      <figcaption className="mb-1 flex flex-wrap items-center gap-x-3 gap-y-0.5 text-[11px] text-muted">
        <span className="font-medium text-[var(--fg)]">Tool-call balance</span>
        <span>+1 per tool call, −1 per response</span>
        <span>
          after input: <b className="tabular-nums text-[var(--fg)]">{steps[Math.max(0, inputCount - 1)]?.balance ?? 0}</b>
        </span>
        <span>
          after output: <b className="tabular-nums text-[var(--fg)]">{last.balance}</b>
        </span>
        <span data-testid="safe-cut-count">
          {cuts.length} safe cut point{cuts.length === 1 ? "" : "s"}
        </span>
        {dangling > 0 && <span className="font-medium text-red-700 dark:text-red-400">{dangling} dangling</span>}
      </figcaption>
      <div className="overflow-x-auto">
        <svg width={w} height={h} role="img" aria-label={`Tool-call balance over ${steps.length} messages, ${cuts.length} safe cut points`} className="block">
          {from > 0 && <rect x={0} y={0} width={from * step} height={h} fill="var(--bg-subtle)" />}
          <line x1={inputCount * step} x2={inputCount * step} y1={0} y2={h} stroke="var(--fg-muted)" strokeDasharray="2 2" />
          <line x1={0} x2={w} y1={y(0)} y2={y(0)} stroke="var(--border)" />
          <path d={d} fill="none" stroke="var(--accent)" strokeWidth={1.5} />
          {cuts.map((s) => (
            <g key={s.index}>
              <line x1={(s.index + 1) * step} x2={(s.index + 1) * step} y1={2} y2={h - 2} stroke="#16a34a" strokeWidth={1.5} />
              <title>{`safe cut after message #${s.index + 1}`}</title>
            </g>
          ))}
        </svg>
      </div>
    </figure>
  );
}
