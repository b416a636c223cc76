"use client";
import { Facts } from "@/components/ui/Facts";
import Link from "next/link";
import { memo } from "react";
import { formatTime } from "@/components/ui/format";
import { callDurationMs, callStartNs, diffMs, formatMs, formatOffset } from "@/lib/trajectory/ns";
import { notRecordedSize } from "@/lib/trajectory/recording";
import { isFailedStatus } from "@/lib/trajectory/timeline";
import { turnEndLabel, type CallNode, type ConversationNode, type TurnNode } from "@/lib/trajectory/tree";
import { CallMessages } from "./CallMessages";
import { MarkerChip, Pill, TurnEndChip } from "./Chips";
import { SEV_BG, SEV_BG_UNKNOWN, SEV_BORDER } from "@/components/ui/severity";

const compact = (n: number | null | undefined) =>
  n === null || n === undefined ? "—" : n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);

export const ConversationHeader = memo(function ConversationHeader({
  conv,
  collapsed,
  onToggle,
  onGoToCall,
  sessionId,
  filtered,
}: {
  conv: ConversationNode;
  collapsed: boolean;
  onToggle: (key: string) => void;
  onGoToCall: (callId: string) => void;
  sessionId: string;
  filtered: boolean;
}) {
  return (
    <div
      data-testid="conversation-row"
      data-conversation-id={conv.conversationId ?? ""}
      className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-t-md border border-default bg-subtle px-2 py-1.5"
    >
      <button
        type="button"
        aria-expanded={!collapsed}
        aria-label={collapsed ? "Expand conversation" : "Collapse conversation"}
        onClick={() => onToggle(conv.key)}
        className="grid h-6 w-6 place-items-center rounded hover:bg-[var(--bg)]"
      >
        <span className={`inline-block transition-transform ${collapsed ? "" : "rotate-90"}`}>▸</span>
      </button>
      <span className="text-[11px] font-semibold uppercase tracking-wide text-muted">Conversation</span>
      <span className="max-w-[22rem] truncate font-mono text-[13px] font-medium" title={conv.conversationId ?? "calls without a conversation"}>
        {conv.conversationId ?? "(no conversation)"}
      </span>
      <span className="text-xs text-muted tabular-nums">
        {conv.loadedCalls < conv.totalCalls ? `${conv.loadedCalls} of ${conv.totalCalls}` : conv.totalCalls} call{conv.totalCalls === 1 ? "" : "s"}
        {" · "}
        {conv.turns.filter((t) => t.turnId).length} turn{conv.turns.filter((t) => t.turnId).length === 1 ? "" : "s"}
        {" · "}
        {formatMs(diffMs(conv.startNs, conv.endNs))}
      </span>
      {conv.markerCount > 0 && (
        <span className={`rounded px-1.5 py-px text-[11px] font-medium ${SEV_BG[conv.severity ?? ""] ?? SEV_BG_UNKNOWN}`}>
          {conv.markerCount} interruption{conv.markerCount === 1 ? "" : "s"} · worst {conv.severity}
        </span>
      )}
      {conv.brickedSinceCallId && (
        <button
          type="button"
          data-testid="bricked-since"
          onClick={() => onGoToCall(conv.brickedSinceCallId!)}
          className="rounded border border-red-600/70 px-1.5 py-px text-[11px] font-medium text-red-700 hover:bg-red-500/10 dark:text-red-400"
          title="The first call whose history broke tool-call pairing; providers reject every later request"
        >
          bricked since call <span className="font-mono">{conv.brickedSinceCallId.slice(0, 12)}</span>
        </button>
      )}
      {conv.conversationId && !filtered && (
        <Link
          href={`/sessions/${encodeURIComponent(sessionId)}?conversation=${encodeURIComponent(conv.conversationId)}`}
          prefetch={false}
          className="ml-auto text-xs accent hover:underline"
        >
          Only this conversation
        </Link>
      )}
    </div>
  );
});

export const TurnHeader = memo(function TurnHeader({ turn, nowNs, staleTurnMinutes }: { turn: TurnNode; nowNs: bigint; staleTurnMinutes: number }) {
  const label = turnEndLabel(turn.info, nowNs, staleTurnMinutes);
  const endedAt = turn.info?.ended_at_ns ?? null;
  return (
    <div
      data-testid="turn-row"
      data-turn-id={turn.turnId ?? ""}
      className="flex items-center gap-3 border-x border-b border-default bg-[var(--bg)] py-1 pl-9 pr-2 text-xs"
    >
      <span className="text-[11px] font-semibold uppercase tracking-wide text-muted">Turn</span>
      <span className="max-w-[16rem] truncate font-mono" title={turn.turnId ?? ""}>
        {turn.turnId}
      </span>
      <span className="text-muted tabular-nums">
        {turn.calls.length} call{turn.calls.length === 1 ? "" : "s"} · {formatMs(diffMs(turn.startNs, turn.endNs))}
      </span>
      {turn.markerCount > 0 && <span className="text-muted">{turn.markerCount} interruption{turn.markerCount === 1 ? "" : "s"}</span>}
      <span className="ml-auto flex items-center gap-2">
        {endedAt !== null && <span className="text-muted">ended {formatTime(String(endedAt))}</span>}
        <TurnEndChip label={label} />
      </span>
    </div>
  );
});

export const CallRow = memo(function CallRow({
  node,
  sessionStartNs,
  maxDurationMs,
  expanded,
  highlighted,
  onToggle,
  inTurn,
}: {
  node: CallNode;
  sessionStartNs: bigint;
  maxDurationMs: number;
  expanded: boolean;
  highlighted: boolean;
  onToggle: (callId: string) => void;
  inTurn: boolean;
}) {
  const c = node.call;
  const duration = callDurationMs(c);
  const failed = isFailedStatus(c.status_code, c.error);
  const unbalanced = c.unbalanced_tool_calls;
  const barPct = duration === null || maxDurationMs <= 0 ? 0 : Math.max(2, Math.round((Math.sqrt(duration) / Math.sqrt(maxDurationMs)) * 100));
  return (
    <div
      data-testid="call-row"
      data-call-id={c.call_id}
      data-marked={c.interruptions.length > 0 ? "true" : "false"}
      data-highlighted={highlighted ? "true" : "false"}
      data-expanded={expanded ? "true" : "false"}
      className={`border-x border-b border-default border-l-4 ${node.severity ? SEV_BORDER[node.severity] : "border-l-transparent"} ${
        highlighted ? "bg-[color-mix(in_srgb,var(--accent)_10%,var(--bg))] outline outline-2 -outline-offset-2 outline-[var(--accent)]" : "bg-[var(--bg)]"
      }`}
    >
      <div
        className={`flex h-9 cursor-pointer items-center gap-2 pr-2 text-xs ${inTurn ? "pl-6" : "pl-2"} hover:bg-subtle`}
        onClick={() => onToggle(c.call_id)}
      >
        <button
          type="button"
          aria-expanded={expanded}
          aria-label={expanded ? "Collapse call" : "Expand call"}
          onClick={(e) => {
            e.stopPropagation();
            onToggle(c.call_id);
          }}
          className="grid h-6 w-6 shrink-0 place-items-center rounded hover:bg-[var(--bg)]"
        >
          <span className={`inline-block text-muted transition-transform ${expanded ? "rotate-90" : ""}`}>▸</span>
        </button>
        <span className="w-10 shrink-0 text-right text-muted tabular-nums">#{node.index + 1}</span>
        <span className="w-[4.5rem] shrink-0 text-muted tabular-nums" title={formatTime(callStartNs(c))}>
          {formatOffset(diffMs(sessionStartNs, callStartNs(c)))}
        </span>
        <span className="flex w-28 shrink-0 items-center gap-1.5" title={duration === null ? "never ended" : formatMs(duration)}>
          <span className="h-1.5 w-12 overflow-hidden rounded-full bg-subtle">
            <span className={`block h-full rounded-full ${failed ? "bg-red-500" : "bg-[var(--accent)]"}`} style={{ width: `${barPct}%` }} />
          </span>
          <span className="tabular-nums">{duration === null ? "open" : formatMs(duration)}</span>
        </span>
        <span className="hidden w-40 shrink-0 truncate md:inline" title={c.model ?? ""}>
          {c.model ?? "—"}
        </span>
        <span className={`w-10 shrink-0 tabular-nums ${failed ? "font-semibold text-red-700 dark:text-red-400" : "text-muted"}`} title={c.error ?? undefined}>
          {c.status_code ?? (c.error ? "err" : "—")}
        </span>
        <span className="hidden w-24 shrink-0 text-muted tabular-nums lg:inline" title="input → output tokens">
          {compact(c.input_tokens)} → {compact(c.output_tokens)}
        </span>
        <span className="hidden w-20 shrink-0 truncate text-muted lg:inline" title={c.finish_reasons.join(", ")}>
          {c.finish_reasons.join(", ") || "—"}
        </span>
        <span className="flex min-w-0 flex-1 items-center gap-1 overflow-hidden">
          {c.interruptions.map((m) => (
            <MarkerChip key={m.interruption_id} marker={m} />
          ))}
          {c.recording_truncated ? (
            <span data-testid="row-recording-truncated" className="shrink-0">
              <Pill tone="warn" title={`${notRecordedSize(c.recording_truncated)} not recorded (over the capture layer's size cap): the bodies shown are incomplete`}>
                recording truncated
              </Pill>
            </span>
          ) : null}
          {unbalanced && (
            <span data-testid="row-unbalanced" className="truncate">
              <Pill tone="danger" title="the request history breaks tool-call pairing">
                {unbalanced.dangling.length > 0 && (
                  <>
                    dangling <span className="font-mono">{listedIds(unbalanced.dangling, unbalanced.dangling_count)}</span>
                  </>
                )}
                {unbalanced.orphan.length > 0 && (
                  <>
                    orphan <span className="font-mono">{listedIds(unbalanced.orphan, unbalanced.orphan_count)}</span>
                  </>
                )}
                {unbalanced.duplicate.length > 0 && (
                  <>
                    duplicate <span className="font-mono">{listedIds(unbalanced.duplicate, unbalanced.duplicate_count)}</span>
                  </>
                )}
              </Pill>
            </span>
          )}
          {c.error && !c.interruptions.length && (
            <span className="truncate text-red-700 dark:text-red-400" title={c.error}>
              {c.error}
            </span>
          )}
        </span>
        <span className="hidden shrink-0 font-mono text-[11px] text-muted xl:inline" title={c.call_id}>
          {c.call_id.length > 14 ? `${c.call_id.slice(0, 14)}…` : c.call_id}
        </span>
      </div>
      {expanded && (
        <div className={`border-t border-default bg-subtle pb-3 pr-3 pt-2 ${inTurn ? "pl-14" : "pl-10"}`}>
          <CallMeta node={node} />
          <CallMessages callId={c.call_id} newFrom={node.newFrom} />
        </div>
      )}
    </div>
  );
});

function CallMeta({ node }: { node: CallNode }) {
  const c = node.call;
  const items: [string, string][] = [
    ["call", c.call_id],
    ["trace", c.trace_id ?? "—"],
    ["provider", c.provider ?? "—"],
    ["model", c.model ?? "—"],
    ["started", formatTime(callStartNs(c))],
    ["duration", formatMs(callDurationMs(c))],
    ["status", c.status_code === null ? "no response" : String(c.status_code)],
    ["tokens", `${c.input_tokens ?? "—"} in · ${c.output_tokens ?? "—"} out${c.max_tokens ? ` · max ${c.max_tokens}` : ""}`],
    ["finish", c.finish_reasons.join(", ") || "—"],
  ];
  if (c.is_sse) items.push(["stream", c.sse_done === false ? "SSE, no terminal event" : "SSE"]);
  if (c.cancelled) items.push(["cancelled", "yes"]);
  const notRecorded = notRecordedSize(c.recording_truncated);
  if (notRecorded) items.push(["not recorded", notRecorded]); // beside the row's "recording truncated" chip
  return <Facts items={items} layout="wrap" className="mb-2 gap-x-4 gap-y-0.5 text-xs" />;
}

/** The ids a call keeps of its imbalance (the first few of each kind) and how many more there were. */
function listedIds(ids: string[], count: number): string {
  const more = count - ids.length;
  return more > 0 ? `${ids.join(", ")} and ${more} more` : ids.join(", ");
}
