/** A horizontal bar: value against a scale, with an optional threshold tick. Colour + text. */
export function Meter({
  value,
  scaleMax,
  threshold,
  thresholdLabel,
  label,
  tone = "warn",
  testId,
}: {
  value: number;
  scaleMax: number;
  threshold?: number;
  thresholdLabel?: string;
  label: string;
  tone?: "warn" | "danger" | "ok";
  testId?: string;
}) {
  const pct = (v: number) => `${Math.max(0, Math.min(100, (v / (scaleMax || 1)) * 100))}%`;
  const color = tone === "danger" ? "bg-red-600" : tone === "ok" ? "bg-green-600" : "bg-amber-500";
  return (
    <div className="flex flex-col gap-1" data-testid={testId}>
      <div className="relative h-3 w-full overflow-visible rounded-full bg-subtle ring-1 ring-inset ring-[var(--border)]">
        <div className={`h-full rounded-full ${color}`} style={{ width: pct(value) }} role="meter" aria-valuenow={value} aria-valuemin={0} aria-valuemax={scaleMax} aria-label={label} />
        {threshold !== undefined && (
          <div className="absolute -top-1 h-5 w-0.5 bg-[var(--fg)]" style={{ left: pct(threshold) }} title={thresholdLabel} aria-hidden />
        )}
      </div>
      <div className="flex justify-between text-xs">
        <span className="font-medium tabular-nums">{label}</span>
        {thresholdLabel && <span className="text-muted">▏{thresholdLabel}</span>}
      </div>
    </div>
  );
}
