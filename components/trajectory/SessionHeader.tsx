"use client";
import Link from "next/link";
import { ListReturnLink } from "@/components/ui/listReturn";
import type { InterruptionRecord } from "@/components/api/types";
import { SeverityBadge, StatusBadge } from "@/components/ui/SeverityBadge";
import { Facts } from "@/components/ui/Facts";
import { formatTime } from "@/components/ui/format";
import { diffMs, formatMs, toBigNs } from "@/lib/trajectory/ns";
import { SEVERITIES } from "@/lib/domain/interruptions";
import { SessionCost } from "./SessionCost";
import type { SessionDetail } from "@/lib/trajectory/types";

export function SessionHeader({
  session,
  interruptions,
  onGoToCall,
  loadedCallIds,
}: {
  session: SessionDetail;
  interruptions: InterruptionRecord[] | undefined;
  onGoToCall: (callId: string) => void;
  loadedCallIds: ReadonlySet<string>;
}) {
  const first = toBigNs(session.first_seen_ns);
  const last = toBigNs(session.last_seen_ns);
  const crashed = session.exited_at_ns !== null && (session.oom || (session.exit_code !== null && session.exit_code !== 0) || !!session.exit_signal);
  const sessionLevel = (interruptions ?? []).filter((i) => !i.call_id);
  const facts: [string, string][] = [
    ["pid", session.pid === null ? "—" : `${session.pid}${session.host ? ` @ ${session.host}` : ""}`],
    ["process", session.process_name ?? "—"],
    ["model", session.model ?? "—"],
    ["first seen", formatTime(String(session.first_seen_ns))],
    ["last seen", `${formatTime(String(session.last_seen_ns))}${first !== null && last !== null ? ` (${formatMs(diffMs(first, last))})` : ""}`],
    ["calls", session.call_count.toLocaleString()],
    ["conversations", session.conversation_count.toLocaleString()],
    ["tokens", `${session.input_tokens.toLocaleString()} in · ${session.output_tokens.toLocaleString()} out`],
  ];
  return (
    <header className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <ListReturnLink path="/sessions" className="text-xs text-muted hover:underline">
          ← Sessions
        </ListReturnLink>
        <h1 className="min-w-0 text-xl font-semibold tracking-tight [overflow-wrap:anywhere]">
          <span className="text-muted">Session · </span>
          <span data-testid="session-agent">{session.agent_name ?? "unknown agent"}</span>
        </h1>
        <span className="min-w-0 break-all font-mono text-xs text-muted" data-testid="session-id">
          {session.session_id}
        </span>
        <span className="ml-auto flex flex-wrap items-center gap-1.5" aria-label="Open interruptions by severity">
          {session.open_interruptions.total === 0 ? (
            <span className="text-xs text-muted">no open interruptions</span>
          ) : (
            SEVERITIES.filter((s) => (session.open_interruptions.by_severity[s] ?? 0) > 0).map((s) => (
              <SeverityBadge key={s} severity={s} count={session.open_interruptions.by_severity[s]} />
            ))
          )}
        </span>
      </div>
      <Facts items={facts} layout="wrap" minWidth="18rem" className="gap-x-6 gap-y-1 text-xs" labelClassName="w-24" mono={false} />
      <SessionCost sessionId={session.session_id} callCount={session.call_count} />
      {session.exited_at_ns !== null && (
        <div
          data-testid="session-exit"
          className={`rounded-md border px-3 py-2 text-xs ${crashed ? "border-red-600/60 bg-red-500/5 text-red-800 dark:text-red-300" : "border-default text-muted"}`}
        >
          <span className="font-semibold">{crashed ? "Process crashed" : "Process exited"}</span> at {formatTime(String(session.exited_at_ns))} · exit code{" "}
          <b>{session.exit_code ?? "—"}</b> · signal <b>{session.exit_signal ?? "—"}</b> · OOM <b>{session.oom ? "yes" : "no"}</b>
        </div>
      )}
      {sessionLevel.length > 0 && (
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <span className="text-muted">Session-level interruptions:</span>
          {sessionLevel.map((i) => (
            <Link key={i.interruption_id} href={`/interruptions/${encodeURIComponent(i.interruption_id)}`} className="inline-flex items-center gap-1.5 hover:underline">
              <SeverityBadge severity={i.severity} />
              <span className="font-medium">{i.interruption_type}</span>
              <StatusBadge status={i.status} />
            </Link>
          ))}
        </div>
      )}
      {interruptions && interruptions.length > 0 && (
        <details className="rounded-md border border-default px-3 py-2 text-xs">
          <summary className="cursor-pointer font-medium">All {interruptions.length} interruptions of this session</summary>
          <table className="mt-2 w-full border-collapse">
            <thead>
              <tr className="text-left text-muted">
                <th className="py-1 pr-3 font-normal">time</th>
                <th className="py-1 pr-3 font-normal">type</th>
                <th className="py-1 pr-3 font-normal">severity</th>
                <th className="py-1 pr-3 font-normal">status</th>
                <th className="py-1 font-normal">call</th>
              </tr>
            </thead>
            <tbody>
              {interruptions.map((i) => (
                <tr key={i.interruption_id} className="border-t border-default">
                  <td className="py-1 pr-3 tabular-nums">{formatTime(i.occurred_at_ns)}</td>
                  <td className="py-1 pr-3">
                    <Link href={`/interruptions/${encodeURIComponent(i.interruption_id)}`} className="accent hover:underline">
                      {i.interruption_type}
                    </Link>
                  </td>
                  <td className="py-1 pr-3">
                    <SeverityBadge severity={i.severity} />
                  </td>
                  <td className="py-1 pr-3">
                    <StatusBadge status={i.status} />
                  </td>
                  <td className="py-1">
                    {i.call_id ? (
                      <button type="button" className="font-mono accent hover:underline" onClick={() => onGoToCall(i.call_id!)}>
                        {i.call_id.length > 24 ? `${i.call_id.slice(0, 24)}…` : i.call_id}
                        {!loadedCallIds.has(i.call_id) && <span className="text-muted"> (not loaded yet)</span>}
                      </button>
                    ) : (
                      <span className="text-muted">session</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </header>
  );
}
