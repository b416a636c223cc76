"use client";
import type { BalanceStep } from "@/lib/trajectory/balance";
import { displayArguments, displayValue, partKey, type ToolPairing, type ToolResponse } from "@/lib/trajectory/messages";
import type { Message, Part, ToolCallPart, ToolCallResponsePart } from "@/lib/trajectory/types";
import { Pill } from "./Chips";
import { TextBlock } from "./TextBlock";

const ROLE_STYLE: Record<string, string> = {
  system: "text-muted",
  user: "text-sky-700 dark:text-sky-400",
  assistant: "text-violet-700 dark:text-violet-400",
  tool: "text-amber-700 dark:text-amber-400",
};

export type ToolIssues = { dangling: Set<string>; orphan: Set<string>; duplicate: Set<string> };

export type MessageListProps = {
  messages: Message[];
  inputCount: number;
  from: number;
  steps: BalanceStep[];
  pairing: ToolPairing;
  issues: ToolIssues;
  highlightToolCallId?: string | null;
  /** the capture layer left part of the bodies out: no output means none was recorded, not none was sent */
  recordedInPart?: boolean;
};

/** A history's messages from `from` on: parts as text, tool calls paired with their responses. */
export function MessageList({ messages, inputCount, from, steps, pairing, issues, highlightToolCallId, recordedInPart }: MessageListProps) {
  const toolNames = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === "tool_call") toolNames.set(p.id, p.name);
  const items = [];
  for (let i = Math.max(0, from); i < messages.length; i++) {
    if (i === inputCount) {
      items.push(
        <div key="output" className="my-1 flex items-center gap-2 text-[11px] font-semibold uppercase tracking-wide text-muted">
          <span>Response</span>
          <span className="h-px flex-1 bg-[var(--border)]" />
        </div>,
      );
    }
    items.push(
      <MessageView
        key={i}
        index={i}
        message={messages[i]}
        step={steps[i]}
        isOutput={i >= inputCount}
        from={from}
        pairing={pairing}
        issues={issues}
        toolNames={toolNames}
        highlightToolCallId={highlightToolCallId}
      />,
    );
    if (steps[i]?.safeCut) {
      items.push(
        <div key={`cut-${i}`} data-testid="safe-cut" className="flex items-center gap-2 py-0.5 text-[11px] text-green-700 dark:text-green-400">
          <span className="h-px flex-1 border-t border-dashed border-green-600/60" />
          <span>safe cut point · balance back to 0 after #{i + 1}</span>
          <span className="h-px flex-1 border-t border-dashed border-green-600/60" />
        </div>,
      );
    }
  }
  if (inputCount === messages.length && messages.length >= from) {
    items.push(
      <div key="no-output" className="mt-1 text-xs text-muted">
        {recordedInPart ? "No response messages recorded (the response was over the capture layer's size cap)." : "No response messages (the call returned no output)."}
      </div>,
    );
  }
  return <div className="flex flex-col gap-1.5">{items}</div>;
}

function MessageView(props: {
  index: number;
  message: Message;
  step: BalanceStep | undefined;
  isOutput: boolean;
  from: number;
  pairing: ToolPairing;
  issues: ToolIssues;
  toolNames: Map<string, string>;
  highlightToolCallId?: string | null;
}) {
  const { index, message, step, isOutput } = props;
  const parts = Array.isArray(message.parts) ? message.parts : [];
  return (
    <div data-testid="message" data-role={message.role} data-index={index} className="grid grid-cols-[3.25rem_minmax(0,1fr)] gap-2">
      <div className="pt-0.5 text-right text-[11px] leading-4 text-muted tabular-nums">
        <div>#{index + 1}</div>
        {step && (
          <div title="tool-call balance after this message" className={step.balance > 0 ? "text-amber-700 dark:text-amber-400" : ""}>
            ⚖ {step.balance}
          </div>
        )}
      </div>
      <div className="min-w-0 rounded border border-default bg-[var(--bg)] px-2.5 py-1.5">
        <div className={`mb-0.5 flex items-center gap-2 text-[11px] font-semibold uppercase tracking-wide ${ROLE_STYLE[message.role] ?? "text-muted"}`}>
          <span>{message.role}</span>
          {isOutput && <span className="font-normal normal-case text-muted">output</span>}
          {message.finish_reason && <span className="font-normal normal-case text-muted">finish: {message.finish_reason}</span>}
        </div>
        {parts.length === 0 && <div className="text-xs text-muted">(no parts)</div>}
        <div className="flex flex-col gap-1.5">
          {parts.map((p, pi) => (
            <PartView key={pi} part={p} messageIndex={index} partIndex={pi} {...props} />
          ))}
        </div>
      </div>
    </div>
  );
}

function PartView({
  part,
  messageIndex,
  partIndex,
  isOutput,
  from,
  pairing,
  issues,
  toolNames,
  highlightToolCallId,
}: {
  part: Part;
  messageIndex: number;
  partIndex: number;
  isOutput: boolean;
  from: number;
  pairing: ToolPairing;
  issues: ToolIssues;
  toolNames: Map<string, string>;
  highlightToolCallId?: string | null;
}) {
  switch (part.type) {
    case "text":
      return <TextBlock text={String(part.content ?? "")} variant="prose" testId="part-text" />;
    case "reasoning":
      return (
        <details open className="rounded bg-subtle px-2 py-1">
          <summary className="cursor-pointer text-[11px] font-medium text-muted">Reasoning</summary>
          <TextBlock text={String(part.content ?? "")} variant="prose" tone="muted" max={2000} testId="part-reasoning" />
        </details>
      );
    case "tool_call":
      return (
        <ToolCallCard
          part={part}
          response={pairing.responseOf.get(part.id)}
          issues={issues}
          isOutput={isOutput}
          highlighted={highlightToolCallId === part.id}
        />
      );
    case "tool_call_response": {
      const callAt = pairing.callOfResponse.get(partKey(messageIndex, partIndex));
      if (callAt !== undefined && callAt >= from) {
        return (
          <div className="text-xs text-muted" data-testid="paired-response">
            ↳ response to <span className="font-mono">{toolNames.get(part.id) ?? "tool"}</span> <span className="font-mono">{part.id}</span> — shown with
            its call in #{callAt + 1}
          </div>
        );
      }
      return <StandaloneResponse part={part} issues={issues} callAt={callAt} name={toolNames.get(part.id)} />;
    }
    default:
      return <TextBlock text={displayValue(part)} testId="part-other" />;
  }
}

function ToolCallCard({
  part,
  response,
  issues,
  isOutput,
  highlighted,
}: {
  part: ToolCallPart;
  response: ToolResponse | undefined;
  issues: ToolIssues;
  isOutput: boolean;
  highlighted: boolean;
}) {
  const dangling = issues.dangling.has(part.id);
  const duplicate = issues.duplicate.has(part.id);
  return (
    <div
      data-testid="tool-call"
      data-tool-call-id={part.id}
      className={`rounded border ${dangling ? "border-red-600/70" : "border-default"} ${highlighted ? "ring-2 ring-[var(--accent)]" : ""} overflow-hidden`}
    >
      <div className="flex flex-wrap items-center gap-2 bg-subtle px-2 py-1 text-xs">
        <span className="text-[11px] uppercase tracking-wide text-muted">tool call</span>
        <span className="font-mono font-semibold">{part.name}</span>
        <span className="font-mono text-[11px] text-muted">{part.id}</span>
        <span className="ml-auto flex gap-1">
          {dangling && <Pill tone="danger">dangling · no response</Pill>}
          {duplicate && <Pill tone="danger">duplicate id</Pill>}
          {response && <Pill tone={response.isError ? "danger" : "ok"}>{response.isError ? "error" : "ok"}</Pill>}
          {!response && !dangling && isOutput && <Pill>response comes with the next call</Pill>}
        </span>
      </div>
      <div className="px-2 py-1">
        <div className="text-[11px] text-muted">arguments</div>
        <TextBlock text={displayArguments(part.arguments)} max={2000} testId="tool-arguments" />
      </div>
      {response && (
        <div className={`border-t border-default px-2 py-1 ${response.isError ? "bg-red-500/5" : ""}`}>
          <div className="text-[11px] text-muted">
            response {response.source === "history" ? `· in #${response.messageIndex + 1}` : "· recorded tool result"}
          </div>
          {response.source === "history" ? (
            <TextBlock text={displayValue(response.response)} max={3000} tone={response.isError ? "error" : "default"} testId="tool-response" />
          ) : (
            <>
              {response.response !== null && <TextBlock text={response.response} max={3000} tone={response.isError ? "error" : "default"} testId="tool-response" />}
              {response.error && <TextBlock text={response.error} tone="error" testId="tool-error" />}
            </>
          )}
        </div>
      )}
      {!response && dangling && (
        <div className="border-t border-red-600/40 bg-red-500/5 px-2 py-1 text-xs text-red-700 dark:text-red-300">
          No response follows this tool call before the next turn: the history is unbalanced, and providers reject every later request
          that carries it.
        </div>
      )}
    </div>
  );
}

function StandaloneResponse({ part, issues, callAt, name }: { part: ToolCallResponsePart; issues: ToolIssues; callAt: number | undefined; name?: string }) {
  const orphan = issues.orphan.has(part.id);
  return (
    <div data-testid="tool-response-standalone" data-tool-call-id={part.id} className={`rounded border ${orphan ? "border-red-600/70" : "border-default"} overflow-hidden`}>
      <div className="flex flex-wrap items-center gap-2 bg-subtle px-2 py-1 text-xs">
        <span className="text-[11px] uppercase tracking-wide text-muted">tool response</span>
        {name && <span className="font-mono font-semibold">{name}</span>}
        <span className="font-mono text-[11px] text-muted">{part.id}</span>
        <span className="ml-auto flex gap-1">
          {orphan && <Pill tone="danger">orphan · no earlier call</Pill>}
          {callAt !== undefined && <Pill>answers #{callAt + 1} (earlier)</Pill>}
          {part.is_error && <Pill tone="danger">error</Pill>}
        </span>
      </div>
      <div className="px-2 py-1">
        <TextBlock text={displayValue(part.response)} max={3000} tone={part.is_error ? "error" : "default"} testId="tool-response" />
      </div>
    </div>
  );
}
