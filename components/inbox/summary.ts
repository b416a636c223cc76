// One line of evidence per interruption for the inbox row (the detail page shows everything).
// The result is plain text: callers render it as a text node, never as HTML.

type Detail = Record<string, unknown>;

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : null);
const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);

function seconds(ms: unknown): string | null {
  return typeof ms === "number" ? (ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s` : `${ms} ms`) : null;
}

export function parseDetail(detail: string): Detail | null {
  try {
    const v: unknown = JSON.parse(detail);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Detail) : null;
  } catch {
    return null;
  }
}

const obj = (v: unknown): Detail | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Detail) : null);

/** The human message of a parsed provider error body, or null. */
function messageOfBody(body: Detail): string | null {
  const error = body.error;
  if (typeof error === "string" && error.trim()) return error;
  const inner = obj(error);
  if (inner) {
    if (typeof inner.message === "string" && inner.message.trim()) return inner.message;
    if (typeof inner.type === "string" && inner.type.trim()) return inner.type;
    if (typeof inner.code === "string" && inner.code.trim()) return inner.code;
  }
  if (typeof body.message === "string" && body.message.trim()) return body.message;
  if (typeof body.detail === "string" && body.detail.trim()) return body.detail;
  return null;
}

const MESSAGE_FIELD = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/;

/**
 * The provider's error message in an error text that may be a JSON error body: OpenAI
 * `{"error": {"message"}}`, Anthropic `{"type": "error", "error": {"type", "message"}}`,
 * `{"error": "…"}`, `{"message": "…"}`. The body may be cut short (details keep its first
 * 500 characters): then the first complete `"message": "…"` is used. Any other text is
 * returned as it is (trimmed).
 */
export function providerErrorMessage(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return trimmed;
  try {
    const parsed = obj(JSON.parse(trimmed));
    if (parsed) return messageOfBody(parsed) ?? trimmed;
  } catch {
    const m = MESSAGE_FIELD.exec(trimmed);
    if (m) {
      try {
        return JSON.parse(`"${m[1]}"`) as string;
      } catch {
        return m[1];
      }
    }
  }
  return trimmed;
}

export function summarize(detail: string): string {
  const d = parseDetail(detail);
  if (!d) return detail.slice(0, 300);
  const parts: string[] = [];
  if (str(d.message)) parts.push(providerErrorMessage(str(d.message)!) || str(d.error_code) || str(d.message)!);
  else if (str(d.snippet)) parts.push(`${str(d.tool_name) ? `${str(d.tool_name)}: ` : ""}${str(d.snippet)}`);
  else if (d.threshold_ms !== undefined && seconds(d.duration_ms)) parts.push(`${seconds(d.duration_ms)} (threshold ${seconds(d.threshold_ms)})`);
  else if (typeof d.output_tokens === "number" && typeof d.max_tokens === "number") parts.push(`${d.output_tokens} / ${d.max_tokens} output tokens`);
  else if (d.reason !== undefined && ("exit_code" in d || "signal" in d || "oom" in d)) {
    const bits = [d.oom ? "OOM" : null, d.exit_code !== null && d.exit_code !== undefined ? `exit ${str(d.exit_code)}` : null, str(d.signal)];
    parts.push(`${bits.filter(Boolean).join(" · ") || str(d.reason)}${str(d.host) ? ` on ${str(d.host)}` : ""}`);
  } else if (str(d.repeated_type)) parts.push(`${str(d.repeated_type)} ×${str(d.count) ?? "?"}`);
  else if (typeof d.repeat_count === "number") parts.push(`${list(d.repeated_tools).join(", ") || "tool"} ×${d.repeat_count}${str(d.rule) ? ` (${str(d.rule)})` : ""}`);
  else if (list(d.finish_reasons).length) parts.push(`finish: ${list(d.finish_reasons).join(", ")}`);
  else if (str(d.reason)) parts.push(str(d.reason)!);
  if (!parts.length) {
    const pairs = Object.entries(d)
      .filter(([, v]) => str(v) !== null)
      .slice(0, 3)
      .map(([k, v]) => `${k}=${str(v)}`);
    parts.push(pairs.join(" ") || "—");
  }
  return parts.join(" ").replace(/\s+/g, " ").slice(0, 300);
}
