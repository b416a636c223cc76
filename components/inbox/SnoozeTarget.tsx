"use client";
// The inbox's snooze dialog: says what the snooze applies to (a row, the selection, a group),
// then asks until when (SnoozeDialog).
import { formatCount } from "@/components/ui/numbers";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import { useInbox } from "./context";
import type { SnoozeTarget } from "./queries";
import { SnoozeDialog } from "./SnoozeDialog";
import { summarize } from "./summary";

const noun = (n: number) => `${formatCount(n)} interruption${n === 1 ? "" : "s"}`;

function titleOf(t: SnoozeTarget): string {
  if (t.kind === "row") return "Snooze interruption";
  if (t.kind === "group") return "Snooze group";
  return `Snooze ${noun(t.count)}?`;
}

function About({ target }: { target: SnoozeTarget }) {
  if (target.kind === "row") {
    const r = target.row;
    return (
      <div className="space-y-1 rounded-md border border-default bg-subtle px-3 py-2" data-testid="snooze-about">
        <div className="flex flex-wrap items-center gap-2">
          <SeverityBadge severity={r.severity} />
          <span className="font-mono text-xs">{r.interruption_type}</span>
          <span className="truncate text-muted">{r.agent_name ?? "unknown agent"}</span>
        </div>
        <p className="line-clamp-2 text-xs text-muted">{summarize(r.detail)}</p>
      </div>
    );
  }
  if (target.kind === "group") {
    const g = target.group;
    return (
      <p data-testid="snooze-about">
        Every unresolved interruption of the group <span className="font-mono text-xs">{g.interruption_type}</span>
        {g.agent_name ? <> · {g.agent_name}</> : null} — at any time, not only the ones shown — and new ones of it as they arrive.
      </p>
    );
  }
  return (
    <p data-testid="snooze-about">
      {target.ids ? `The ${noun(target.count)} you selected` : `All ${noun(target.count)} that are unresolved and match the current filters`} (resolved ones are left as
      they are). New ones of the same kind still arrive.
    </p>
  );
}

export function SnoozeTargetDialog() {
  const { actions } = useInbox();
  const target = actions.snoozing;
  return (
    <SnoozeDialog
      open={target !== null}
      title={target ? titleOf(target) : ""}
      about={target ? <About target={target} /> : null}
      pending={actions.snoozePending}
      error={actions.snoozeError}
      onCancel={actions.cancelSnooze}
      onConfirm={actions.confirmSnooze}
    />
  );
}
