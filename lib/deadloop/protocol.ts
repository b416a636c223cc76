// The dead-loop action (SPEC §7), the pure parts shared by the server and the forwarder: when a
// process is signalled, and the signed `terminate` request. No I/O here.
//
// A *detection* is one call whose dead-loop window fires (SPEC §3.3): the call that opens a
// conversation's dead_loop interruption, and every later call that adds evidence to it
// (`occurrences += 1`). A process (a session: agent + pid + host) has as many detections as the
// `occurrences` of all its dead_loop interruptions added up, over all its conversations, open or
// resolved. With `deadloop.kill_after_count` = N: the detection that brings the count to N (or
// beyond) asks for SIGTERM; any later detection asks for SIGKILL; nothing more after that.
import { z } from "zod";
import { checkSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../alerts/rules";

export const TERMINATE_SIGNALS = ["SIGTERM", "SIGKILL"] as const;
export type TerminateSignal = (typeof TERMINATE_SIGNALS)[number];

/** Where a forwarder takes terminate requests, under its advertised URL. */
export const TERMINATE_PATH = "/terminate";
/** The X-SightDesk-Event header of a terminate request. */
export const TERMINATE_EVENT = "process.terminate";
/** A request whose `issued_at_ms` is further than this from the forwarder's clock is refused. */
export const MAX_SKEW_MS = 60_000;

/** A request already made for the process: its signal, the detections it was decided at, and its status. */
export type PriorRequest = { signal: string; detections: number; status?: string };

/**
 * The signal the process gets now, given its detections and the requests already made, or null.
 * None while the SIGTERM is still being sent (`pending`): SIGKILL must not reach the process
 * first; its sender looks at the process again once the outcome is recorded.
 */
export function nextSignal(detections: number, killAfterCount: number, prior: readonly PriorRequest[]): TerminateSignal | null {
  if (detections < killAfterCount) return null;
  if (prior.some((p) => p.signal === "SIGKILL")) return null;
  const term = prior.find((p) => p.signal === "SIGTERM");
  if (!term) return "SIGTERM";
  return detections > term.detections && term.status !== "pending" ? "SIGKILL" : null;
}

export const terminatePayloadSchema = z.object({
  /** unique per request: the forwarder refuses a second request with the same id (replay) */
  request_id: z.string().min(1).max(100),
  session_id: z.string().min(1),
  pid: z.int().positive(),
  host: z.string().nullable(),
  agent_name: z.string().nullable(),
  signal: z.enum(TERMINATE_SIGNALS),
  interruption_id: z.string(),
  detections: z.int(),
  /** when the server signed it (ms since the epoch) */
  issued_at_ms: z.int(),
});
export type TerminatePayload = z.infer<typeof terminatePayloadSchema>;

export type Verified = { ok: true; payload: TerminatePayload } | { ok: false; status: 400 | 401; error: string };

/**
 * What a forwarder checks before anything else: the HMAC of `<X-SightDesk-Timestamp>.<raw body>`
 * — the generic webhooks' signature — with a timestamp within MAX_SKEW_MS of `nowMs` (401), the
 * body's shape (400), and its `issued_at_ms`, also within MAX_SKEW_MS of `nowMs` either way (401:
 * an old request replayed later is refused even when its signature is good).
 */
export function verifyTerminate(
  secret: string,
  body: string,
  signature: string | null | undefined,
  timestamp: string | null | undefined,
  nowMs: number,
): Verified {
  const checked = checkSignature(secret, body, signature, timestamp, { nowMs, toleranceSecs: MAX_SKEW_MS / 1000 });
  if (!checked.ok) {
    const error = checked.reason === "expired" || checked.reason === "bad_timestamp" ? checked.error : `bad or missing ${SIGNATURE_HEADER} or ${TIMESTAMP_HEADER}`;
    return { ok: false, status: 401, error };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return { ok: false, status: 400, error: "body is not JSON" };
  }
  const parsed = terminatePayloadSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, status: 400, error: `${issue.path.join(".") || "body"}: ${issue.message}` };
  }
  if (Math.abs(nowMs - parsed.data.issued_at_ms) > MAX_SKEW_MS) {
    return { ok: false, status: 401, error: `request issued at ${parsed.data.issued_at_ms} is outside the ${MAX_SKEW_MS / 1000} s window` };
  }
  return { ok: true, payload: parsed.data };
}
