// Secrets never reach storage: credential-bearing keys are dropped from anything stored as
// JSON, and key- or bearer-shaped strings are masked in stored text.
const SECRET_KEY = /^(authorization|proxy-authorization|x-api-key|api[-_]?key|x-goog-api-key|cookie|set-cookie|openai-api-key|anthropic-api-key|access[-_]?token|secret|password)$/i;
// Credential shapes: bearer values, OpenAI/Anthropic (`sk-…`), Stripe, GitHub, Slack, AWS and
// Google keys, and `SOME_API_KEY=value` assignments. Matches never include quotes or
// backslashes, so masking text inside serialized JSON keeps it valid JSON.
const SECRET_TEXT = new RegExp(
  [
    /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/.source,
    /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{12,}/.source,
    /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}/.source,
    /\bgh[pousr]_[A-Za-z0-9]{20,}/.source,
    /\bxox[abprs]-[A-Za-z0-9-]{10,}/.source,
    /\bAKIA[0-9A-Z]{16}\b/.source,
    /\bAIza[0-9A-Za-z_-]{35}/.source,
    /(\b[A-Z0-9_]*(?:API_KEY|APIKEY|SECRET|TOKEN|PASSWORD)[A-Z0-9_]*\s*[=:]\s*)[^\s"'\\]{6,}/.source,
  ].join("|"),
  "g",
);

export function redactText(text: string): string {
  return text.replace(SECRET_TEXT, (_m, bearer: string | undefined, assignment: string | undefined) => `${bearer ?? assignment ?? ""}[redacted]`);
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
