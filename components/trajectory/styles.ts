// Class names for turn ends, written out in full so Tailwind generates them (severities: components/ui/severity.ts).
export const TURN_END_STYLE: Record<string, string> = {
  completed: "border-green-600/60 text-green-700 dark:text-green-400",
  failed: "border-red-600/70 text-red-700 dark:text-red-400",
  cancelled: "border-[var(--border)] text-muted",
  steered: "border-sky-600/60 text-sky-700 dark:text-sky-400",
  drained: "border-violet-600/60 text-violet-700 dark:text-violet-400",
  dispatched: "border-indigo-600/60 text-indigo-700 dark:text-indigo-400",
  awaiting: "border-amber-600/60 text-amber-700 dark:text-amber-400",
  open: "border-dashed border-[var(--border)] text-muted",
  unsettled: "border-dashed border-red-600/70 text-red-700 dark:text-red-400",
};

export const TURN_END_HELP: Record<string, string> = {
  completed: "the turn reached its final answer",
  failed: "the turn ended with a failure",
  cancelled: "the turn was cancelled",
  steered: "a person steered the agent mid-turn",
  drained: "the agent stopped taking work (shutdown drain)",
  dispatched: "the work was handed to a sub-agent",
  awaiting: "the agent is waiting for input",
  open: "no turn end has been reported yet",
  unsettled: "no turn end and no activity for a long time",
};
