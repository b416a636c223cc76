// Number formatting for dense tables and cards (fixed locale so server and browser agree).
const whole = new Intl.NumberFormat("en-US");
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

export const formatCount = (n: number): string => whole.format(n);
export const formatCompact = (n: number): string => (Math.abs(n) < 1000 ? whole.format(n) : compact.format(n));
