// The pure half of call ingest: everything that reads a call's untrusted text — masking
// secrets, deriving keys, hashing the message chain, judging tool results, summarizing the
// output for the dead-loop window — done before the database is touched, so that it can run
// off the request thread for large bodies (lib/api/ingestOffload.ts). The result is plain,
// structured-cloneable data.
import crypto from "node:crypto";
import { summarizeCall, type CallSummary } from "../detect/deadLoop";
import { imbalanceOf, toolBalance, type Imbalance } from "../detect/toolBalance";
import { judgeToolResult, type ToolResultFinding } from "../detect/toolResult";
import { callKeys, type CallKeys } from "./keys";
import { chainNodes, rememberChain, type MessageNode } from "./messages";
import { redactText, redactValue, storedArguments, storedResult } from "./redact";
import type { ChatMessage, NormalizedCall, ToolCallPart, ToolCallResponsePart } from "../domain/calls";
import { hasBrand } from "../domain/errors";

const RESPONSE_BODY_CAP = 64 * 1024;
const WINDOW_TEXT_CAP = 1500;

/** A tool result as stored (secrets masked) and as judged (SPEC §3.1). */
export type ToolResultFacts = { response: string; finding: ToolResultFinding | null };
export type StoredBlob = { id: string; content: string };

/** A message's tool calls and results: all the database half reads of its parts. */
export type ToolParts = (ToolCallPart | ToolCallResponsePart)[];

/** The fields of a call the database half reads: its messages are in the nodes and the tool parts. */
export type CallFields = Omit<NormalizedCall, "input_messages" | "output_messages" | "system_instructions" | "tools" | "extra">;

export type Prepared = {
  /** the call, with its error and response body masked (and the body capped) */
  call: CallFields;
  keys: CallKeys;
  endNs: bigint | null;
  /** message nodes with their stored (masked) parts */
  input: MessageNode[];
  output: MessageNode[];
  /** each input and output message's tool calls and results */
  inputTools: ToolParts[];
  outputTools: ToolParts[];
  /**
   * Input messages before this index arrive thin (`thinned`): their nodes carry only ids, and no
   * tool parts. 0 when not thinned (prepared on the thread that stores it, or again whole).
   */
  thinInput: number;
  /** leading input messages the conversation's previous call (in this process) carried, read then */
  reused: number;
  /** index of the first input node not stored before this call (set in the transaction) */
  newInputStart: number;
  /** the history's tool-call imbalance (SPEC §3.2); null when balanced */
  imbalance: Imbalance | null;
  /** output parts that say something (a reasoning part with no text does not) */
  outputPartCount: number;
  /** the call's entry in its conversation's dead-loop window (masked, capped) */
  summary: CallSummary;
  /** tool results and arguments of the messages this call is the first to carry, read once */
  toolResults: Map<string, ToolResultFacts>;
  toolArguments: Map<string, string>;
  /** the names of the tool calls those results answer, as the history gives them */
  answeredNames: Map<string, string>;
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
    response: storedResult(response),
    finding: judgeToolResult({ response, isError }),
  };
}

const toolPartsOf = (m: ChatMessage): ToolParts =>
  m.parts.filter((p): p is ToolCallPart | ToolCallResponsePart => p.type === "tool_call" || p.type === "tool_call_response");

/** The parts of an answer that answer (SPEC §3.1 empty_response: no text, no tool call): reasoning alone does not. */
const outputParts = (messages: ChatMessage[]) =>
  messages.reduce((n, m) => n + m.parts.filter((p) => p.type === "tool_call" || p.type === "tool_call_response" || (p.type === "text" && p.content.trim() !== "")).length, 0);

/** Tool results and arguments of `messages`, keyed by tool call id (the first of each wins); the results' names from `history`. */
function toolFacts(messages: ChatMessage[], history: ToolParts[]): Pick<Prepared, "toolResults" | "toolArguments" | "answeredNames"> {
  const toolResults = new Map<string, ToolResultFacts>();
  const toolArguments = new Map<string, string>();
  const answeredNames = new Map<string, string>();
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
  if (toolResults.size) {
    for (const parts of history) {
      for (const part of parts) if (part.type === "tool_call" && toolResults.has(part.id) && !answeredNames.has(part.id)) answeredNames.set(part.id, part.name);
    }
  }
  return { toolResults, toolArguments, answeredNames };
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

  const summary = summarizeCall(call.output_messages, call.input_tokens);
  summary.text = redactText(summary.text.slice(0, WINDOW_TEXT_CAP)); // the window is stored with the conversation
  const carried = [...call.input_messages.slice(reused), ...call.output_messages];
  const balance = toolBalance(call.input_messages);
  const { input_messages, output_messages, system_instructions, tools, extra, ...fields } = call;
  const inputTools = input_messages.map(toolPartsOf);
  return {
    call: fields,
    keys,
    endNs: endOf(call),
    input,
    output,
    inputTools,
    outputTools: output_messages.map(toolPartsOf),
    thinInput: 0,
    reused,
    newInputStart: 0,
    imbalance: imbalanceOf(balance),
    outputPartCount: outputParts(output_messages),
    summary,
    ...toolFacts(carried, inputTools),
    systemBlob: blob(system_instructions?.length ? system_instructions : null),
    toolsBlob: blob(tools),
    extra: extra && Object.keys(extra).length ? JSON.stringify(redactValue(extra)) : null,
  };
}

const NO_PARTS: ToolParts = [];

/**
 * `p` for the thread that stores it, without what its conversation's previous call carried: those
 * input nodes as ids, without tool parts. Copying whole histories between threads cost as much
 * as preparing them. When those earlier messages turn out not to be stored, the transaction
 * throws `ThinHistoryError` and the call is prepared again, whole (`storePrepared`).
 */
export function thinned(p: Prepared): Prepared {
  const n = p.reused;
  if (n === 0) return p;
  return {
    ...p,
    input: p.input.map((node, i) => (i < n ? { id: node.id, parentId: null, seq: node.seq, role: "", parts: "" } : node)),
    inputTools: p.inputTools.map((parts, i) => (i < n ? NO_PARTS : parts)),
    thinInput: n,
  };
}

const THIN_HISTORY = Symbol.for("sightdesk.ThinHistoryError");

/** A batch holds thin calls (`thinned`) whose earlier messages are not stored: prepare it again whole. */
export class ThinHistoryError extends Error {
  readonly [THIN_HISTORY] = true;

  constructor() {
    super("a call prepared thin names earlier messages that are not stored");
  }

  // thrown by the group commit of whichever bundle started it
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, THIN_HISTORY);
  }
}
