"use client";
import { format } from "date-fns";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { MouseEvent } from "react";
import { formatTime, nsToDate, shortId, timeAgo } from "@/components/ui/format";
import { formatCompact, formatCount } from "@/components/ui/numbers";
import { OpenBadges } from "./OpenBadges";
import { sessionHref, type SessionSummary } from "./types";

function exitText(s: SessionSummary): string | null {
  if (s.oom) return "OOM-killed";
  if (s.exit_signal) return `exited ${s.exit_signal}`;
  if (s.exit_code !== null) return `exited ${s.exit_code}`;
  if (s.exited_at_ns) return "exited";
  return null;
}

const th = "sticky top-0 z-10 border-b border-default bg-subtle px-3 py-2 text-left text-xs font-medium uppercase tracking-wide text-muted whitespace-nowrap";
const td = "px-3 py-2 align-top";

/** Clicking anywhere on a row opens the session (the session id cell is the real link). */
function openRow(router: ReturnType<typeof useRouter>, id: string) {
  return (e: MouseEvent<HTMLTableRowElement>) => {
    if (e.defaultPrevented || e.button !== 0) return;
    const target = e.target as HTMLElement;
    if (target.closest("a,button,input,select,[tabindex]")) return;
    if (window.getSelection()?.toString()) return; // selecting text is not a click
    if (e.metaKey || e.ctrlKey) window.open(sessionHref(id), "_blank", "noopener");
    else router.push(sessionHref(id));
  };
}

export function SessionsTable({ sessions }: { sessions: SessionSummary[] }) {
  const router = useRouter();
  return (
    <div className="overflow-x-auto rounded-lg border border-default">
      <table className="w-full border-collapse text-sm" data-testid="sessions-table">
        <thead>
          <tr>
            <th className={th} scope="col">Agent</th>
            <th className={th} scope="col">Session</th>
            <th className={th} scope="col">First seen</th>
            <th className={th} scope="col">Last seen</th>
            <th className={`${th} text-right`} scope="col">Conv.</th>
            <th className={`${th} text-right`} scope="col">Calls</th>
            <th className={`${th} text-right`} scope="col">Tokens in / out</th>
            <th className={th} scope="col">Model</th>
            <th className={th} scope="col">Open interruptions</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-[var(--border)]">
          {sessions.map((s) => {
            const exit = exitText(s);
            return (
              <tr
                key={s.session_id}
                data-testid="session-row"
                data-session-id={s.session_id}
                onClick={openRow(router, s.session_id)}
                className="cursor-pointer hover:bg-subtle"
              >
                <td className={`${td} max-w-[16rem]`}>
                  <div className="truncate font-medium" data-testid="session-agent" title={s.agent_name ?? undefined}>
                    {s.agent_name ?? <span className="text-muted">unknown</span>}
                  </div>
                  {(s.host || s.pid !== null) && (
                    <div className="truncate text-xs text-muted">
                      {s.host ?? "?"}
                      {s.pid !== null && ` · pid ${s.pid}`}
                    </div>
                  )}
                </td>
                <td className={`${td} whitespace-nowrap`}>
                  <Link href={sessionHref(s.session_id)} className="font-mono text-xs accent hover:underline" title={s.session_id} data-testid="session-link">
                    {shortId(s.session_id, 12)}
                  </Link>
                </td>
                <td className={`${td} whitespace-nowrap tabular-nums`} title={formatTime(s.first_seen_ns)}>
                  {format(nsToDate(s.first_seen_ns), "MMM d, HH:mm")}
                </td>
                <td className={`${td} whitespace-nowrap`}>
                  <span title={formatTime(s.last_seen_ns)}>{timeAgo(s.last_seen_ns)}</span>
                  {exit && <div className={`text-xs ${s.oom || s.exit_signal === "SIGKILL" ? "text-red-600 dark:text-red-400" : "text-muted"}`}>{exit}</div>}
                </td>
                <td className={`${td} text-right tabular-nums`}>{formatCount(s.conversation_count)}</td>
                <td className={`${td} text-right tabular-nums`}>{formatCount(s.call_count)}</td>
                <td className={`${td} whitespace-nowrap text-right tabular-nums`} title={`${formatCount(s.input_tokens)} input, ${formatCount(s.output_tokens)} output tokens`}>
                  {formatCompact(s.input_tokens)} <span className="text-muted">/</span> {formatCompact(s.output_tokens)}
                </td>
                <td className={`${td} max-w-[12rem]`}>
                  <div className="truncate font-mono text-xs" title={s.model ?? undefined} data-testid="session-model">
                    {s.model ?? <span className="text-muted">—</span>}
                  </div>
                </td>
                <td className={td} data-testid="session-open">
                  <OpenBadges open={s.open_interruptions} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
