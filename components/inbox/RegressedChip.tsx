/** "regressed": a fingerprint that had been resolved fired again (text, not colour alone). */
export function RegressedChip() {
  return (
    <span
      data-testid="regressed"
      title="Regressed: an earlier interruption with the same fingerprint had been resolved before this one"
      className="inline-flex items-center gap-0.5 rounded border border-red-500 px-1 font-sans text-[11px] font-medium text-red-700 dark:text-red-300"
    >
      <span aria-hidden="true">↺</span>regressed
    </span>
  );
}
