"use client";
import type { InterruptionRecord } from "@/components/api/types";
import { formatTime, timeAgo } from "@/components/ui/format";
import { TextBlock } from "@/components/trajectory/TextBlock";
import type { Activity as ActivityEntry } from "@/components/api/types";
import { userOfActorName } from "@/lib/auth/actor";
import { useActivity } from "./queries";

/** "user:alice@x" → "alice@x"; "token:ci" → "token ci". */
export const actorLabel = (actor: string) => userOfActorName(actor) ?? (actor.startsWith("token:") ? `token ${actor.slice(6)}` : actor);

const field = (v: unknown, key: string): string | null => {
  if (!v || typeof v !== "object") return null;
  const x = (v as Record<string, unknown>)[key];
  return typeof x === "string" ? x : null;
};

function describe(e: ActivityEntry): string {
  switch (e.action) {
    case "acknowledge":
      return "acknowledged";
    case "resolve":
      return "resolved";
    case "reopen":
      return "reopened";
    case "assign": {
      const to = field(e.after, "assignee");
      return to ? `assigned to ${actorLabel(to)}` : "unassigned";
    }
    case "note":
      return "added a note";
    case "snooze":
      return "snoozed it";
    case "mute":
      return "muted it (a mute rule)";
    case "wake":
      return "woke it";
    case "terminate": {
      // the dead-loop action (SPEC §7); the note says for which pid and what the forwarder answered
      const signal = field(e.after, "signal") ?? "a signal";
      return field(e.after, "status") === "sent" ? `sent ${signal} to the process` : `could not send ${signal} to the process`;
    }
    default:
      return e.action;
  }
}

export function ActivityLog({ record }: { record: InterruptionRecord }) {
  const q = useActivity(record.interruption_id);
  return (
    <ol className="flex flex-col" data-testid="activity-log">
      <Entry at={record.occurred_at_ns} actor="SightDesk" text="detected" dot="bg-[var(--fg-muted)]" />
      {q.isPending && <li className="py-1 pl-5 text-xs text-muted">Loading activity…</li>}
      {q.isError && (
        <li role="alert" className="py-1 pl-5 text-xs text-red-700 dark:text-red-400">
          Could not load activity: {q.error.message}
        </li>
      )}
      {q.data?.map((e, i) => {
        const before = field(e.before, "status");
        const after = field(e.after, "status");
        return (
          <Entry
            key={i}
            at={String(e.at_ns)}
            actor={actorLabel(e.actor)}
            text={describe(e)}
            change={before && after && before !== after ? `${before} → ${after}` : undefined}
            note={e.note}
            action={e.action}
            dot={e.action === "resolve" ? "bg-green-600" : e.action === "acknowledge" ? "bg-amber-500" : e.action === "reopen" || e.action === "terminate" ? "bg-red-600" : "bg-[var(--accent)]"}
          />
        );
      })}
      {q.data && q.data.length === 0 && <li className="py-1 pl-5 text-xs text-muted">No one has acted on it yet.</li>}
    </ol>
  );
}

function Entry({ at, actor, text, change, note, action, dot }: { at: string; actor: string; text: string; change?: string; note?: string | null; action?: string; dot: string }) {
  return (
    <li className="relative border-l border-default pb-3 pl-5 last:pb-0" data-testid="activity-entry" data-action={action ?? "detected"}>
      <span className={`absolute -left-[5px] top-1.5 h-2.5 w-2.5 rounded-full ring-2 ring-[var(--bg)] ${dot}`} aria-hidden />
      <div className="flex flex-wrap items-baseline gap-x-2 text-sm">
        <span className="font-medium">{actor}</span>
        <span>{text}</span>
        {change && <span className="text-xs text-muted">{change}</span>}
        <time className="ml-auto text-xs text-muted tabular-nums" title={formatTime(at)}>
          {timeAgo(at)}
        </time>
      </div>
      {note && (
        <div className="mt-1 rounded-md bg-subtle px-2 py-1.5" data-testid="activity-note">
          <TextBlock text={note} variant="prose" max={2000} />
        </div>
      )}
    </li>
  );
}
