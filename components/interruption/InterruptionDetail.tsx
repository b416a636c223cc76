"use client";
import Link from "next/link";
import { ListReturnLink } from "@/components/ui/listReturn";
import type { ReactNode } from "react";
import { ApiRequestError } from "@/components/api/client";
import type { InterruptionRecord } from "@/components/api/types";
import { SeverityBadge, StatusBadge } from "@/components/ui/SeverityBadge";
import { formatTime, timeAgo } from "@/components/ui/format";
import { Actions } from "./Actions";
import { ActivityLog, actorLabel } from "./ActivityLog";
import { CallContext } from "./CallContext";
import { CostLine } from "./CostLine";
import { Facts } from "@/components/ui/Facts";
import { Section } from "@/components/ui/Section";
import { Evidence } from "./Evidence";
import { useInterruption } from "./queries";
import { TYPE_HELP } from "./typeHelp";

const enc = encodeURIComponent;

export function InterruptionDetail({ id }: { id: string }) {
  const q = useInterruption(id);
  if (q.isPending) return <p className="py-8 text-sm text-muted">Loading interruption…</p>;
  if (q.isError) {
    const notFound = q.error instanceof ApiRequestError && q.error.status === 404;
    return (
      <div className="py-8" role="alert">
        <h1 className="text-lg font-semibold">{notFound ? "Interruption not found" : "Could not load the interruption"}</h1>
        <p className="mt-1 text-sm text-muted">{notFound ? "It may have been removed by retention, or the link is wrong." : q.error.message}</p>
        <Link href="/inbox" className="mt-3 inline-block text-sm accent hover:underline">
          ← Back to the inbox
        </Link>
      </div>
    );
  }
  const r = q.data;
  return (
    <div className="flex flex-col gap-4" data-testid="interruption-detail" data-interruption-id={r.interruption_id}>
      <Header record={r} />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="flex min-w-0 flex-col gap-4">
          <Evidence record={r} />
          <CallContext record={r} />
        </div>
        <aside className="flex min-w-0 flex-col gap-4">
          <Section title="Actions">
            <Actions record={r} />
          </Section>
          <Section title="Activity">
            <ActivityLog record={r} />
          </Section>
          <Section title="Fields">
            <Fields record={r} />
          </Section>
        </aside>
      </div>
    </div>
  );
}

function Header({ record: r }: { record: InterruptionRecord }) {
  const links: { label: string; href: string; testId: string; value: string }[] = [];
  if (r.session_id) links.push({ label: "session", href: `/sessions/${enc(r.session_id)}`, testId: "link-session", value: r.session_id });
  if (r.session_id && r.conversation_id)
    links.push({ label: "conversation", href: `/sessions/${enc(r.session_id)}?conversation=${enc(r.conversation_id)}`, testId: "link-conversation", value: r.conversation_id });
  if (r.session_id && r.call_id) links.push({ label: "call", href: `/sessions/${enc(r.session_id)}?call=${enc(r.call_id)}`, testId: "link-call", value: r.call_id });
  return (
    <header className="flex flex-col gap-2">
      <ListReturnLink path="/inbox" className="text-xs text-muted hover:underline">
        ← Inbox
      </ListReturnLink>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="font-mono text-xl font-semibold tracking-tight" data-testid="interruption-type">
          {r.interruption_type}
        </h1>
        <SeverityBadge severity={r.severity} />
        <span data-testid="interruption-status">
          <StatusBadge status={r.status} />
        </span>
        {r.occurrences > 1 && <span className="rounded border border-default px-1.5 py-0.5 text-xs">× {r.occurrences} occurrences</span>}
        {r.assignee && (
          <span className="text-xs text-muted" data-testid="assignee">
            assigned to <b className="text-[var(--fg)]">{actorLabel(r.assignee)}</b>
          </span>
        )}
      </div>
      <p className="text-sm text-muted [overflow-wrap:anywhere]">
        {TYPE_HELP[r.interruption_type] ?? "An abnormal ending."} <span className="text-[var(--fg)]">{r.agent_name ?? "Unknown agent"}</span>
        {r.pid !== null && <> (pid {r.pid})</>} · {formatTime(r.occurred_at_ns)} ({timeAgo(r.occurred_at_ns)})
        {r.last_seen_ns !== r.occurred_at_ns && <> · last seen {timeAgo(r.last_seen_ns)}</>}
      </p>
      <CostLine id={r.interruption_id} occurrences={r.occurrences} />
      {links.length > 0 && (
        <nav className="flex flex-wrap gap-2 text-xs" aria-label="Related">
          {links.map((l) => (
            <Link key={l.label} href={l.href} data-testid={l.testId} className="inline-flex max-w-full items-center gap-1.5 rounded-md border border-default px-2 py-1 hover:bg-subtle">
              <span className="text-muted">{l.label}</span>
              <span className="max-w-[18rem] truncate font-mono">{l.value}</span>
              <span className="accent">→</span>
            </Link>
          ))}
        </nav>
      )}
    </header>
  );
}

function Fields({ record: r }: { record: InterruptionRecord }) {
  const mono = (v: string | number | null): ReactNode => (v === null || v === "" ? <span className="text-muted">—</span> : <span className="break-all font-mono">{String(v)}</span>);
  const time = (ns: string | null): ReactNode =>
    ns === null ? (
      <span className="text-muted">—</span>
    ) : (
      <span title={`${ns} ns`}>
        {formatTime(ns)} <span className="block break-all font-mono text-[11px] text-muted">{ns}</span>
      </span>
    );
  const rows: [string, ReactNode][] = [
    ["interruption_id", mono(r.interruption_id)],
    ["interruption_type", mono(r.interruption_type)],
    ["severity", mono(r.severity)],
    ["status", mono(r.status)],
    ["resolved", mono(String(r.resolved))],
    ["agent_name", r.agent_name === null ? mono(null) : <span className="break-all">{r.agent_name}</span>],
    ["pid", mono(r.pid)],
    ["session_id", mono(r.session_id)],
    ["conversation_id", mono(r.conversation_id)],
    ["call_id", mono(r.call_id)],
    ["trace_id", mono(r.trace_id)],
    ["occurred_at", time(r.occurred_at_ns)],
    ["last_seen", time(r.last_seen_ns)],
    ["occurrences", mono(r.occurrences)],
    ["assignee", mono(r.assignee)],
    ["acknowledged_by", mono(r.acknowledged_by && actorLabel(r.acknowledged_by))],
    ["resolved_by", mono(r.resolved_by && actorLabel(r.resolved_by))],
    ["resolved_at", time(r.resolved_at_ns)],
    ["fingerprint", mono(r.fingerprint)],
  ];
  return (
<Facts items={rows} className="gap-x-3 gap-y-1.5 text-xs" testId="fields" />
  );
}
