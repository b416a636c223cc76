"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import type { TypeCount } from "@/components/api/types";
import { shortId } from "@/components/ui/format";
import { formatCount } from "@/components/ui/numbers";
import { Panel, PanelMessage, SkeletonRows } from "@/components/ui/Panel";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import { sessionHref, type SessionSummary } from "@/components/sessions/types";
import { topAgents, topSessions, topTypes } from "./derive";
import type { AgentCount, SessionCount } from "./queries";
import { inboxHref, RANGE_INFO, type Range } from "./range";
import { RankedList } from "./Ranked";

type Loadable<T> = { data: T | undefined; error: Error | null; isPending: boolean };

function body<T>(q: Loadable<T>, what: string, render: (data: T) => ReactNode) {
  if (q.data !== undefined) return render(q.data);
  if (q.error) return <PanelMessage tone="error">Could not load {what}: {q.error.message}</PanelMessage>;
  return <SkeletonRows />;
}

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

export function TopTypes({ stats, range }: { stats: Loadable<TypeCount[]>; range: Range }) {
  return (
    <Panel testId="top-types" title="Top types" subtitle={`Unresolved, ${RANGE_INFO[range].long}`}>
      {body(stats, "types", (data) => {
        const rows = topTypes(data);
        if (!rows.length) return <PanelMessage>No unresolved interruptions in {RANGE_INFO[range].long}.</PanelMessage>;
        return (
          <RankedList
            testId="top-types-list"
            noun="types"
            items={rows.map((r) => ({
              key: r.type,
              href: inboxHref({ interruption_type: r.type }, range),
              label: <span className="font-mono text-[13px]">{r.type}</span>,
              marks: <SeverityBadge severity={r.severity} />,
              count: r.count,
              by_severity: r.by_severity,
              countLabel: `${r.count} unresolved ${r.type}`,
            }))}
          />
        );
      })}
    </Panel>
  );
}

export function TopAgents({ counts, range }: { counts: Loadable<AgentCount[]>; range: Range }) {
  return (
    <Panel testId="top-agents" title="Top agents" subtitle={`Unresolved, ${RANGE_INFO[range].long}`}>
      {body(counts, "agents", (data) => {
        const { rows, unattributed } = topAgents(data);
        if (!rows.length && !unattributed) return <PanelMessage>No unresolved interruptions in {RANGE_INFO[range].long}.</PanelMessage>;
        return (
          <>
            <RankedList
              testId="top-agents-list"
              noun="agents"
              items={rows.map((r) => ({
                key: r.agent,
                href: inboxHref({ agent_name: r.agent }, range),
                label: r.agent,
                detail: `${plural(r.sessions, "session")} affected`,
                count: r.count,
                by_severity: r.by_severity,
                countLabel: `${r.count} unresolved`,
              }))}
            />
            {unattributed > 0 && (
              <p className="border-t border-default px-4 py-2 text-xs text-muted" data-testid="top-agents-unattributed">
                {plural(unattributed, "interruption")} without an agent name are not attributed to an agent.
              </p>
            )}
          </>
        );
      })}
    </Panel>
  );
}

export function TopSessions({ counts, sessions, range }: { counts: Loadable<SessionCount[]>; sessions: Loadable<SessionSummary[]>; range: Range }) {
  return (
    <Panel
      testId="top-sessions"
      title="Most affected sessions"
      subtitle={`Unresolved, ${RANGE_INFO[range].long}`}
      action={
        <Link href="/sessions?with_open=true" className="accent hover:underline">
          All sessions →
        </Link>
      }
    >
      {body(counts, "sessions", (data) => {
        // The agent names arrive separately (the listed sessions only); rows show without them until then.
        const rows = topSessions(data, sessions.data ?? []);
        if (!rows.length) return <PanelMessage>No session has unresolved interruptions in {RANGE_INFO[range].long}.</PanelMessage>;
        return (
          <RankedList
            testId="top-sessions-list"
            noun="sessions"
            items={rows.map((r) => ({
              key: r.session_id,
              href: sessionHref(r.session_id),
              label: r.agent ?? <span className="text-muted">{sessions.data ? "unknown agent" : "…"}</span>,
              marks: (
                <span className="whitespace-nowrap font-mono text-xs text-muted" title={r.session_id}>
                  {shortId(r.session_id)}
                </span>
              ),
              detail: r.types
                .slice()
                .sort((a, b) => b.count - a.count)
                .map((t) => `${t.interruption_type} ×${t.count}`)
                .join(", "),
              count: r.total,
              by_severity: r.by_severity,
              countLabel: `${r.total} unresolved`,
            }))}
          />
        );
      })}
    </Panel>
  );
}
