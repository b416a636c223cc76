// Secrets never reach storage: credential-bearing keys are dropped from anything stored as
// JSON, and key- or bearer-shaped strings are masked in stored text.
const SECRET_KEY = /^(authorization|proxy-authorization|x-api-key|api[-_]?key|x-goog-api-key|cookie|set-cookie|openai-api-key|anthropic-api-key|access[-_]?token|secret|password)$/i;
const SECRET_TEXT = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(sk-(?:ant-)?[A-Za-z0-9_-]{12,})/g;

export function redactText(text: string): string {
  return text.replace(SECRET_TEXT, (_m, bearer: string | undefined) => (bearer ? `${bearer}[redacted]` : "[redacted]"));
}

/** A deep copy of `value` without credential keys, with secret-looking strings masked. */
export function redactValue(value: unknown): unknown {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = redactValue(v);
    return out;
  }
  return value;
}
