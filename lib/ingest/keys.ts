// Keys derived when the sender gives none (SPEC §2.4). All are the first 32 hex of a SHA-256,
// so the same input always yields the same key and replays never duplicate anything.
import crypto from "node:crypto";
import { canonicalJson } from "../detect/text";
import { Memo } from "../memo";
import type { ChatMessage, NormalizedCall } from "../domain/calls";

const SEPARATOR = "\u001f";

export function hash32(...parts: string[]): string {
  return crypto.createHash("sha256").update(parts.join(SEPARATOR), "utf8").digest("hex").slice(0, 32);
}

export function deriveSessionId(agentName?: string | null, pid?: number | null, host?: string | null): string {
  return hash32(agentName ?? "", pid == null ? "" : String(pid), host ?? "");
}

const firstUser = (messages: ChatMessage[]) => messages.find((m) => m.role === "user") ?? null;
const lastUser = (messages: ChatMessage[]) => [...messages].reverse().find((m) => m.role === "user") ?? null;

export function deriveConversationId(sessionId: string, call: Pick<NormalizedCall, "system_instructions" | "input_messages">): string {
  const first = firstUser(call.input_messages);
  return hash32(sessionId, canonicalJson(call.system_instructions ?? []), canonicalJson(first?.parts ?? null));
}

export function deriveTurnId(conversationId: string, messages: ChatMessage[]): string {
  return hash32(conversationId, canonicalJson(lastUser(messages)?.parts ?? null));
}

/**
 * `turnId`: the Turn row's id. A sender's turn_id is its own within a session ("t-1" in every
 * session of an agent that counts its turns), so the row's id scopes it to the session and
 * `turnLabel` keeps it as given; a derived id needs no scope (it hashes its conversation).
 */
export type CallKeys = { sessionId: string; conversationId: string; turnId: string; turnLabel: string | null };

/** The Turn row id of a turn_id a sender gave in `sessionId`. */
export const turnRowId = (sessionId: string, turnId: string): string => hash32("turn", sessionId, turnId);

/** The session a call or process event belongs to: the one it names, else its agent process's. */
export const sessionIdOf = (x: { session_id?: string | null; agent_name?: string | null; pid?: number | null; host?: string | null }): string =>
  x.session_id || deriveSessionId(x.agent_name, x.pid, x.host);

/**
 * The conversation of a call whose request its capture layer could not record (a body over the
 * recording proxy's cap: a long context, screenshots): its history is unknown, so it is a
 * conversation of its own — derived from the empty history it arrives with, every such call of
 * the session was one conversation and one turn, and their dead-loop windows were shared.
 */
const unrecordedConversationId = (sessionId: string, callId: string) => hash32(sessionId, "request not recorded", callId);

export function callKeys(call: NormalizedCall): CallKeys {
  const sessionId = sessionIdOf(call);
  const unrecorded = call.input_messages.length === 0 && (call.recording_truncated ?? 0) > 0;
  const conversationId = call.conversation_id || (unrecorded ? unrecordedConversationId(sessionId, call.call_id) : deriveConversationId(sessionId, call));
  const turnLabel = call.turn_id || null;
  const turnId = turnLabel ? turnRowId(sessionId, turnLabel) : deriveTurnId(conversationId, call.input_messages);
  return { sessionId, conversationId, turnId, turnLabel };
}

/** Interruption ids: deterministic in what triggered them (SPEC §2.4). */
export const interruptionId = (...trigger: string[]) => hash32("interruption", ...trigger);

/** One interruption at most per tool call, whichever path (history or event) judges it first. */
export const toolInterruptionId = (sessionId: string, toolCallId: string) => interruptionId("tool", sessionId, toolCallId);

/**
 * Tool-call row ids of recent batches: a batch names each tool call several times (rows to load,
 * rows to write). Only ids of ordinary length are kept, so what it holds stays small.
 */
const recentToolCallRowIds = new Memo<string>(10_000, 256);

export const toolCallRowId = (sessionId: string, toolCallId: string): string =>
  recentToolCallRowIds.get(sessionId + SEPARATOR + toolCallId, () => hash32("tool_call", sessionId, toolCallId));

/**
 * The lock key of a content-addressed blob: ingest holds it while it stores a call naming the
 * blob, and the sweep while it deletes blobs no call names (lib/sweeps/sweep.ts), so a blob is
 * never deleted under a call about to name it.
 */
export const blobLockKey = (blobId: string) => `blob${SEPARATOR}${blobId}`;

/**
 * The lock keys of a batch's call ids: two copies of one call sent at once (a client's retry
 * through another process) that derive different sessions (one names its session, the other
 * lets it be derived) are stored one after the other, and the second sees the first.
 */
export const callLockKeys = (callIds: readonly string[]): string[] => callIds.map((id) => `call${SEPARATOR}${id}`);
