// The pure half of call ingest: everything that reads a call's untrusted text — masking
// secrets, deriving keys, hashing the message chain, judging tool results, summarizing the
// output for the dead-loop window — done before the database is touched, so that it can run
// off the request thread for large bodies (lib/api/ingestOffload.ts). The result is plain,
// structured-cloneable data.
import crypto from "node:crypto";
import { summarizeCall, type CallSummary } from "../detect/deadLoop";
import { judgeToolResult, type ToolResultFinding } from "../detect/toolResult";
import { callKeys, type CallKeys } from "./keys";
import { chainNodes, rememberChain, type MessageNode } from "./messages";
import { redactText, redactValue, storedArguments } from "./redact";
import type { ChatMessage, NormalizedCall } from "../domain/calls";

const RESPONSE_BODY_CAP = 64 * 1024;
const WINDOW_TEXT_CAP = 1500;

/** A tool result as stored (secrets masked) and as judged (SPEC §3.1). */
export type ToolResultFacts = { response: string; finding: ToolResultFinding | null };
export type StoredBlob = { id: string; content: string };

export type Prepared = {
  /** the call, with its error and response body masked (and the body capped) */
  call: NormalizedCall;
  keys: CallKeys;
  endNs: bigint | null;
  /** message nodes with their stored (masked) parts */
  input: MessageNode[];
  output: MessageNode[];
  /** index of the first input node not stored before this call (set in the transaction) */
  newInputStart: number;
  /** the call's entry in its conversation's dead-loop window (masked, capped) */
  summary: CallSummary;
  /** tool results and arguments of the messages this call is the first to carry, read once */
  toolResults: Map<string, ToolResultFacts>;
  toolArguments: Map<string, string>;
  systemBlob: StoredBlob | null;
  toolsBlob: StoredBlob | null;
  /** unknown fields, masked, as JSON */
  extra: string | null;
};

const sha32 = (text: string) => crypto.createHash("sha256").update(text).digest("hex").slice(0, 32);

function endOf(call: NormalizedCall): bigint | null {
  if (call.end_ns != null) return call.end_ns;
  if (call.duration_ns != null) return call.start_ns + call.duration_ns;
  return null;
}

function blob(value: unknown): StoredBlob | null {
  if (value === undefined || value === null) return null;
  const content = JSON.stringify(redactValue(value));
  return { id: sha32(content), content };
}

/** A tool result read once: its stored text and its judgement. */
export function toolResultFacts(response: unknown, isError: boolean | null): ToolResultFacts {
  return {
    response: redactText(typeof response === "string" ? response : JSON.stringify(response ?? null)),
    finding: judgeToolResult({ response, isError }),
  };
}

/** Tool results and arguments of `messages`, keyed by tool call id (the first of each wins). */
function toolFacts(messages: ChatMessage[]): Pick<Prepared, "toolResults" | "toolArguments"> {
  const toolResults = new Map<string, ToolResultFacts>();
  const toolArguments = new Map<string, string>();
  for (const m of messages) {
    for (const part of m.parts) {
      if (part.type === "tool_call" && part.arguments !== undefined && !toolArguments.has(part.id)) {
        toolArguments.set(part.id, storedArguments(part.arguments));
      }
      if (part.type === "tool_call_response" && !toolResults.has(part.id)) {
        toolResults.set(part.id, toolResultFacts(part.response, part.is_error ?? null));
      }
    }
  }
  return { toolResults, toolArguments };
}

export function prepareCall(raw: NormalizedCall): Prepared {
  // Error texts are masked before anything reads them, so no finding's detail can carry a key.
  const call: NormalizedCall = {
    ...raw,
    error: raw.error ? redactText(raw.error) : raw.error,
    response_body: raw.response_body ? redactText(raw.response_body.slice(0, RESPONSE_BODY_CAP)) : raw.response_body,
  };
  const keys = callKeys(call);
  // Messages the previous call of this conversation (in this process) carried were read then.
  const { nodes: input, reused } = chainNodes(keys.conversationId, call.input_messages, null, 0);
  const tail = input.length ? input[input.length - 1].id : null;
  const { nodes: output } = chainNodes(keys.conversationId, call.output_messages, tail, input.length);
  rememberChain(keys.conversationId, call.input_messages, input, call.output_messages, output);

  const summary = summarizeCall(call.call_id, call.output_messages, call.input_tokens);
  summary.text = redactText(summary.text.slice(0, WINDOW_TEXT_CAP)); // the window is stored with the conversation
  const carried = [...call.input_messages.slice(reused), ...call.output_messages];
  return {
    call,
    keys,
    endNs: endOf(call),
    input,
    output,
    newInputStart: 0,
    summary,
    ...toolFacts(carried),
    systemBlob: blob(call.system_instructions?.length ? call.system_instructions : null),
    toolsBlob: blob(call.tools),
    extra: call.extra && Object.keys(call.extra).length ? JSON.stringify(redactValue(call.extra)) : null,
  };
}
