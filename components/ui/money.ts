// US dollars as people read them: cents for ordinary amounts, whole dollars for large ones and
// significant digits for the fractions of a cent a single call costs.
const whole = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const cents = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const small = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumSignificantDigits: 3 });

export function formatUsd(n: number): string {
  const abs = Math.abs(n);
  if (abs === 0) return cents.format(0);
  if (abs >= 10_000) return whole.format(n);
  if (abs >= 0.1) return cents.format(n);
  return small.format(n);
}

/** A share of a total, as a whole percent ("<1 %" for a small but non-zero share). */
export function formatShare(part: number, total: number): string {
  if (total <= 0 || part <= 0) return "0 %";
  const pct = (part / total) * 100;
  return pct < 1 ? "<1 %" : `${Math.round(pct)} %`;
}
