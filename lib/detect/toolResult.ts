// Judging one tool result (SPEC §3.1): unauthorized_action is checked before tool_failure,
// since a denied action usually also reports itself as failed.
import { tryParseJson } from "../json";

export type ToolResultInput = {
  response: unknown;
  isError?: boolean | null;
  success?: boolean | null;
  error?: string | null;
};

export type ToolResultFinding = {
  type: "unauthorized_action" | "tool_failure";
  detail: { reason: string; snippet: string };
};

const SNIPPET_CAP = 300;
/** Outputs longer than twice this are read at their start and end, where denials and exit statuses are printed. */
const EDGE_CAP = 64 * 1024;

const edges = (text: string) => (text.length <= 2 * EDGE_CAP ? text : `${text.slice(0, EDGE_CAP)}\n${text.slice(-EDGE_CAP)}`);

const DENIED = /\bEPERM\b|\bEACCES\b|permission denied|operation not permitted|sandbox denied|denied by policy/i;

// Exit codes are read from status-like lines only, so prose such as "the tool returns exit
// code 1 when…" inside an ordinary output does not count. Within a line only spaces and tabs
// are skipped: a pattern that could cross line ends would rescan every following line from
// each line start (quadratic in the number of lines).
const EXIT_LINE =
  /^[ \t[(]*(?:(?:error|process|command|shell|script|program)[ \t]*(?::[ \t]*)?)*(?:exit[ \t_]*(?:code|status)|return[ \t_]*code|returncode|(?:exited|failed|finished|terminated|completed)[ \t]+with[ \t]+(?:exit[ \t]+)?(?:code|status))[ \t]*[:=]?[ \t]*(-?\d+)/im;
const EXIT_BRACKETED = /[[(][ \t]*exit[ \t_]*(?:code|status)[ \t]*[:=]?[ \t]*(-?\d+)[ \t]*[\])]/i;
const EXIT_KEYS = ["exit_code", "exitCode", "returncode"] as const;

type JsonObject = Record<string, unknown>;

function asObject(v: unknown): JsonObject | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : null;
}

/** Readable text of a result: strings as is, content blocks by their text, the rest as JSON. */
function textOf(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(textOf).filter((s) => s !== "").join("\n");
  const o = asObject(v);
  if (o && typeof o.text === "string" && Object.keys(o).every((k) => k === "type" || k === "text")) {
    return o.text;
  }
  return JSON.stringify(v) ?? "";
}

/** The result as a JSON object: given as one, or as text holding one. */
function jsonObjectOf(response: unknown, text: string): JsonObject | null {
  const direct = asObject(response);
  if (direct) return direct;
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return null;
  return asObject(tryParseJson(trimmed));
}

function nonZeroCode(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isInteger(n) && n !== 0 ? n : null;
}

/** A non-zero exit code in the JSON (top level, or Codex-style `metadata`) or a status line. */
function exitCodeOf(obj: JsonObject | null, text: string): number | null {
  for (const o of [obj, asObject(obj?.metadata)]) {
    for (const key of EXIT_KEYS) {
      const code = o ? nonZeroCode(o[key]) : null;
      if (code !== null) return code;
    }
  }
  const m = EXIT_LINE.exec(text) ?? EXIT_BRACKETED.exec(text);
  return m ? nonZeroCode(m[1]) : null;
}

function failureReason(r: ToolResultInput, obj: JsonObject | null, text: string): string | null {
  if (r.isError === true || obj?.is_error === true || obj?.isError === true) return "is_error";
  if (r.success === false || obj?.success === false) return "success_false";
  if (obj && Boolean(obj.error)) return "error_key";
  // An error reported beside the result is the same as the result's own "error" key.
  if (r.error && r.error.trim() !== "") return "error";
  const code = exitCodeOf(obj, text);
  return code === null ? null : `exit_code ${code}`;
}

export function judgeToolResult(r: ToolResultInput): ToolResultFinding | null {
  const responseText = textOf(r.response);
  const errorText = r.error ?? "";
  const snippet = [responseText, errorText]
    .filter((s) => s !== "")
    .join("\n")
    .slice(0, SNIPPET_CAP);

  // a result that says it succeeded was not denied: the words are its content (a source file, a log)
  const succeeded = r.isError === false || r.success === true;
  const denied = succeeded ? null : DENIED.exec(edges(responseText)) ?? DENIED.exec(edges(errorText));
  if (denied) return { type: "unauthorized_action", detail: { reason: denied[0], snippet } };

  const obj = jsonObjectOf(r.response, responseText);
  const reason = failureReason(r, obj, edges(responseText));
  return reason === null ? null : { type: "tool_failure", detail: { reason, snippet } };
}
