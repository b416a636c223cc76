// Reading an interruption's evidence (`detail`, a JSON-encoded string) for display.

export type Detail = Record<string, unknown>;

/** The detail object, or null when it is not a JSON object. */
export function parseDetail(detail: string | null | undefined): Detail | null {
  if (!detail) return null;
  try {
    const v: unknown = JSON.parse(detail);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Detail) : null;
  } catch {
    return null;
  }
}

export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null);
export const str = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : null);
export const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : JSON.stringify(x))) : []);

/** part / whole, or null when either is missing or whole is not positive. */
export function ratioOf(part: number | null, whole: number | null): number | null {
  if (part === null || whole === null || !(whole > 0)) return null;
  return part / whole;
}

export const percent = (r: number | null, digits = 1): string => (r === null ? "—" : `${(r * 100).toFixed(digits)}%`);

/** A dead-loop tool signature "name#argsFingerprint" split in its parts. */
export function splitToolSignature(sig: string): { name: string; fingerprint: string | null } {
  const at = sig.lastIndexOf("#");
  return at <= 0 ? { name: sig, fingerprint: null } : { name: sig.slice(0, at), fingerprint: sig.slice(at + 1) || null };
}

/** Consecutive identical signatures grouped: [{name, fingerprint, count}]. */
export function groupSignatures(sigs: string[]): { signature: string; name: string; fingerprint: string | null; count: number }[] {
  const out: { signature: string; name: string; fingerprint: string | null; count: number }[] = [];
  for (const s of sigs) {
    const last = out[out.length - 1];
    if (last && last.signature === s) last.count += 1;
    else out.push({ signature: s, ...splitToolSignature(s), count: 1 });
  }
  return out;
}

export const DEAD_LOOP_RULES: Record<string, string> = {
  tool_sequence_repetition: "The last calls that used tools all made the identical sequence of tool calls (same tools, same arguments).",
  output_similarity_loop: "The last text outputs are nearly identical to each other.",
  token_burn_no_progress: "Input tokens keep growing while the outputs stay the same: tokens burnt without progress.",
  busy_wait: "Consecutive calls whose tool calls only run idle commands (echo, date, sleep, true, pwd): polling instead of ending the turn.",
};

export const STATE_MACHINE_RULES: Record<string, string> = {
  unbalanced_tool_calls: "The request history breaks tool-call pairing: providers reject it, and every later request carrying it.",
  invalid_response_body: "The 2xx response body is not valid for its provider's format.",
  provider_rejected_history: "The provider rejected the history's tool-call pairing (HTTP 400).",
  unsettled_turn: "A turn with calls never ended and saw no activity for a long time.",
};

export const CRASH_REASONS: Record<string, string> = {
  oom: "killed for running out of memory",
  signal: "killed by a signal",
  exit_code: "exited with a non-zero code",
  killed_mid_turn: "stopped by a shutdown signal in the middle of a turn",
};
