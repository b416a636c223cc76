/** A small inline trend line (SVG) with a text alternative: counts per bucket, oldest first. */
export function Sparkline({
  values,
  label,
  width = 72,
  height = 18,
  testId,
}: {
  values: readonly number[];
  /** What the values count, for the text alternative ("interruptions per 1 h"). */
  label: string;
  width?: number;
  height?: number;
  testId?: string;
}) {
  const max = Math.max(1, ...values);
  const n = values.length;
  const x = (i: number) => (n <= 1 ? width / 2 : (i / (n - 1)) * (width - 2) + 1);
  const y = (v: number) => height - 1 - (v / max) * (height - 2);
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const total = values.reduce((a, b) => a + b, 0);
  const text = `Trend: ${total} ${label}, ${values.join(", ")}`;
  return (
    <svg
      role="img"
      aria-label={text}
      data-testid={testId}
      data-values={values.join(",")}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      className="inline-block align-middle text-[var(--accent)]"
    >
      <title>{text}</title>
      <line x1="0" x2={width} y1={height - 0.5} y2={height - 0.5} stroke="currentColor" strokeOpacity="0.2" strokeWidth="1" />
      {n > 0 && <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" strokeLinecap="round" />}
      {n > 0 && values[n - 1] > 0 && <circle cx={x(n - 1)} cy={y(values[n - 1])} r="1.75" fill="currentColor" />}
    </svg>
  );
}
