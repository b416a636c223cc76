"use client";
import { useMemo, useState } from "react";
import { balanceSteps } from "@/lib/trajectory/balance";
import { defaultWindowStart, displayValue, pairToolCalls } from "@/lib/trajectory/messages";
import type { CallDetail, Message } from "@/lib/trajectory/types";
import { BalanceStrip } from "./BalanceStrip";
import { Pill } from "./Chips";
import { MessageList } from "./MessageList";
import { useCall } from "./queries";
import { TextBlock } from "./TextBlock";

/**
 * A call's messages: system instructions, the input history (by default only its tail: what
 * this call added, or the last few), the output, tool calls paired with their responses, and
 * the running tool-call balance with its safe cut points.
 */
export function CallMessages({
  callId,
  newFrom,
  tail,
  highlightToolCallId,
}: {
  callId: string;
  /** first input message this call added (trajectory), or undefined to show the last `tail` */
  newFrom?: number;
  tail?: number;
  highlightToolCallId?: string | null;
}) {
  const q = useCall(callId);
  if (q.isPending) return <div className="py-2 text-xs text-muted">Loading messages…</div>;
  if (q.isError)
    return (
      <div className="py-2 text-xs text-red-700 dark:text-red-400" role="alert">
        Could not load the call’s messages: {q.error.message}
      </div>
    );
  return <CallMessagesView call={q.data} newFrom={newFrom} tail={tail} highlightToolCallId={highlightToolCallId} />;
}

export function CallMessagesView({ call, newFrom, tail = 4, highlightToolCallId }: { call: CallDetail; newFrom?: number; tail?: number; highlightToolCallId?: string | null }) {
  const input = useMemo<Message[]>(() => (Array.isArray(call.input_messages) ? call.input_messages : []), [call.input_messages]);
  const output = useMemo<Message[]>(() => (Array.isArray(call.output_messages) ? call.output_messages : []), [call.output_messages]);
  const all = useMemo(() => [...input, ...output], [input, output]);
  const steps = useMemo(() => balanceSteps(all), [all]);
  const pairing = useMemo(() => pairToolCalls(all, call.tool_calls ?? []), [all, call.tool_calls]);
  const balance = call.tool_balance;
  const issues = useMemo(
    () => ({ dangling: new Set(balance?.dangling ?? []), orphan: new Set(balance?.orphan ?? []), duplicate: new Set(balance?.duplicate ?? []) }),
    [balance],
  );
  const windowStart = newFrom === undefined ? defaultWindowStart(input.length, input.length, tail, tail) : defaultWindowStart(input.length, newFrom);
  // A highlighted tool call (the one a tool interruption is about) is always shown.
  const highlightAt = highlightToolCallId ? pairing.callMessage.get(highlightToolCallId) : undefined;
  const initialFrom = highlightAt !== undefined ? Math.min(windowStart, highlightAt) : windowStart;
  const [from, setFrom] = useState(initialFrom);
  const system = Array.isArray(call.system_instructions) ? call.system_instructions : [];
  const systemText = system.map((p) => ("content" in p ? String(p.content) : displayValue(p))).join("\n\n");

  return (
    <div className="flex flex-col gap-2" data-testid="call-messages" data-call-id={call.call_id}>
      {call.error && (
        <div className="rounded border border-red-600/50 bg-red-500/5 px-2.5 py-1.5">
          <div className="text-[11px] font-semibold uppercase tracking-wide text-red-700 dark:text-red-400">
            Error{call.status_code !== null ? ` · HTTP ${call.status_code}` : ""}
          </div>
          <TextBlock text={call.error} tone="error" testId="call-error" />
        </div>
      )}
      {balance && !balance.balanced && (
        <div className="flex flex-wrap items-center gap-1.5 text-xs" data-testid="balance-issues">
          <span className="font-medium text-red-700 dark:text-red-400">Unbalanced history:</span>
          {balance.dangling.map((id) => (
            <Pill key={`d-${id}`} tone="danger" title="a tool call with no response">
              dangling <span className="font-mono">{id}</span>
            </Pill>
          ))}
          {balance.orphan.map((id) => (
            <Pill key={`o-${id}`} tone="danger" title="a response with no earlier call">
              orphan <span className="font-mono">{id}</span>
            </Pill>
          ))}
          {balance.duplicate.map((id) => (
            <Pill key={`u-${id}`} tone="danger" title="one id called twice">
              duplicate <span className="font-mono">{id}</span>
            </Pill>
          ))}
        </div>
      )}
      <BalanceStrip steps={steps} inputCount={input.length} from={from} dangling={balance?.dangling.length ?? 0} />
      {systemText && (
        <details className="rounded border border-default px-2.5 py-1.5">
          <summary className="cursor-pointer text-[11px] font-semibold uppercase tracking-wide text-muted">
            System instructions <span className="font-normal normal-case">({systemText.length.toLocaleString()} characters)</span>
          </summary>
          <div className="mt-1">
            <TextBlock text={systemText} variant="prose" testId="system-instructions" />
          </div>
        </details>
      )}
      {from > 0 && (
        <button type="button" className="self-start rounded border border-default px-2 py-0.5 text-xs hover:bg-subtle" onClick={() => setFrom(0)}>
          Show {from} earlier message{from === 1 ? "" : "s"} of the history
        </button>
      )}
      {from === 0 && initialFrom > 0 && (
        <button type="button" className="self-start rounded border border-default px-2 py-0.5 text-xs hover:bg-subtle" onClick={() => setFrom(initialFrom)}>
          Hide the earlier history
        </button>
      )}
      {all.length === 0 ? (
        <div className="text-xs text-muted">No messages were recorded for this call.</div>
      ) : (
        <MessageList messages={all} inputCount={input.length} from={from} steps={steps} pairing={pairing} issues={issues} highlightToolCallId={highlightToolCallId} recordedInPart={!!call.recording_truncated} />
      )}
    </div>
  );
}
