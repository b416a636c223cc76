// Secrets never reach storage: credential-bearing keys are dropped from (or masked in) anything
// stored as JSON, and key- or bearer-shaped strings are masked in stored text.
//
// Every pattern here reads untrusted text of up to the body limit, so each is written to run
// in time linear in its input: no quantifier is nested in another over the same characters,
// and a name is matched only from its first character (a lookbehind), never from each of its
// inner positions.
import { tryParseJson } from "../json";

/**
 * How a name ends when it holds a credential: `OPENAI_API_KEY`, `x-api-key`, `client_secret`,
 * `GITHUB_TOKEN`, `password`, `passphrase`, `X-Auth-Key`; `pass` and `pwd` only as the last word
 * of a longer name (`SMTP_PASS`, `MYSQL_PWD`: not `bypass`, nor a test log's `PASS: test_x`).
 */
const SECRET_NAME_END =
  "(?:api[-_]?key|secret(?:[-_]?(?:access[-_]?)?key)?|(?:access|private|subscription|functions?|master|signing|account|license|client|host|app|auth|session|encryption|ssh)[-_]?key|token|passw(?:or)?d|passphrase|(?<=[A-Za-z0-9][-_])(?:pass|pwd)|authorization|credentials?|cookie)";
const SECRET_NAME = new RegExp(`^(?:.*[^a-z0-9])?(?:[a-z0-9]*${SECRET_NAME_END})(?:[-_]?\\d{1,3})?$|^set-cookie$`, "i");
/** Spaces and tabs, also as escapes inside serialized JSON (`\\t`). */
const BLANKS = "(?:[ \\t]|\\\\t){0,64}";
/** Auth schemes kept in front of a masked credential (`Authorization: Basic [redacted]`). */
const SCHEME = "(?:basic|bearer|digest|token|api-?key|key|bot|ssws)[ \\t]{1,16}";

// Quantifiers are bounded: V8 keeps a backtrack entry per character an open-ended `{n,}`
// matched, and a run of millions overflows its stack (a RangeError, not a slow answer).
// Credential shapes: bearer values, provider keys (OpenAI/Anthropic `sk-…`, Stripe, GitHub,
// GitLab, Slack, AWS, Google, Hugging Face, Groq, xAI), URL credentials, curl's -u, PEM private
// keys. Matches never include quotes, and only the PEM body includes backslashes (whole `\n`
// escapes: it ends where `-----END` begins), so masking text inside serialized JSON keeps it
// valid JSON.
// Each group named `keepN` is what stays in front of the mask.
const SHAPES = [
  /(?<keep1>[Bb][Ee][Aa][Rr][Ee][Rr][ \t]{1,16})[A-Za-z0-9._~+/=-]{8,4096}/.source,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{12,512}/.source,
  /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{10,512}/.source,
  /\bgh[pousr]_[A-Za-z0-9]{20,512}/.source,
  /\bglpat-[A-Za-z0-9_-]{20,512}/.source,
  /\bxox[abprs]-[A-Za-z0-9-]{10,512}/.source,
  /\bAKIA[0-9A-Z]{16}\b/.source,
  /\bAIza[0-9A-Za-z_-]{35}/.source,
  // Hugging Face, Groq, xAI, Google OAuth access tokens
  /\bhf_[A-Za-z0-9]{30,512}/.source,
  /\bgsk_[A-Za-z0-9]{40,512}/.source,
  /\bxai-[A-Za-z0-9]{20,512}/.source,
  /\bya29\.[A-Za-z0-9_-]{20,4096}/.source,
  // a URL's credential parameter (`?key=…`, `&access_token=…`)
  /(?<keep4>[?&](?:key|api[-_]?key|apikey|token|access[-_]?token|auth|sig|signature|secret|password|code)=)[^&\s"'\\#]{1,2048}/.source,
  // curl's user and password (`-u admin:⟨password⟩`, `--user admin:⟨password⟩`)
  /(?<keep5>(?:^|[ \t])(?:-u|--user)[ \t=]{1,8}[^\s:"'\\]{1,256}:)[^\s"'\\]{1,256}/.source,
  // a PEM private key's body, between its BEGIN and END lines
  // (no quote inside: inside serialized JSON the mask stays within one string)
  /(?<keep6>-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----)[^-"]{1,65536}(?=-----END [A-Z ]{0,40}PRIVATE KEY-----)/.source,
];
const URL_SHAPES = [
  // a URL's password (`postgres://app:⟨password⟩@db/app`), or a long user part alone, which is
  // a token (`https://⟨glpat-…⟩@gitlab.com`, a Sentry DSN's key)
  /(?<keep2>\b[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:/@"'\\]{0,256}:)[^\s:/@"'\\]{1,256}(?=@)/.source,
  /(?<keep3>\b[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/)[^\s:/@"'\\]{16,256}(?=@)/.source,
];
const SECRET_SHAPE = new RegExp([...SHAPES, ...URL_SHAPES].join("|"), "g");
// The URL shapes try a scheme at every word and cost three quarters of the scan; text without
// `://` cannot match them, so it is scanned for the others alone (the same matches).
const SECRET_SHAPE_BUT_URLS = new RegExp(SHAPES.join("|"), "g");

// The start of `name = value` / `name: value` where the name ends like a credential, in any
// case, up to the value: bare, quoted, or quoted inside serialized JSON (`{\"api_key\": \"…\"}`),
// after an optional auth scheme. Group 1: the quote closing the name (a JSON key's); group 2:
// the opening quote of the value.
const SECRET_ASSIGNMENT = new RegExp(
  `(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{0,64}?${SECRET_NAME_END}(?:[-_]?\\d{1,3})?(\\\\?["'])?${BLANKS}[=:]${BLANKS}(\\\\?["'])?(?:${SCHEME})?`,
  "gi",
);

/** A bare JSON value that is no secret: left as it is (so is a structure, which text masking cannot cut out and keep JSON). */
const KEPT_BARE = /^(?:null|true|false)$/;

/**
 * A cheap first look: a credential name's ending followed by `=` or `:` (perhaps after a quote).
 * Tried only at each `=` and `:`, reading back from it (a lookbehind): tried at every letter, the
 * names' alternatives cost 8× as much.
 */
const MAYBE_ASSIGNMENT = new RegExp(`[=:](?<=${SECRET_NAME_END}(?:[-_]?\\d{1,3})?\\\\?["']?(?:[ \\t]|\\\\t){0,64}[=:])`, "i");

const MASK = "[redacted]";

const BARE_END = new Set(['"', "'", "\\", ",", ";", "&", " ", "\t", "\r", "\n", "\f", "\v"]);

/** A bare value after a quoted key, as in JSON (a number, a literal), ends at a closing bracket too. */
const BARE_JSON_END = new Set([...BARE_END, "}", "]"]);

/** Where a bare value starting at `from` ends: at the first of `ends` (a space or separator). */
function valueEnd(text: string, from: number, ends: ReadonlySet<string>): number {
  let at = from;
  while (at < text.length && !ends.has(text[at])) at++;
  return at;
}

/**
 * Where a value opened by `quote` (`"` or `'`) ends: at its closing quote, stepping over escapes
 * (`\"`, `\\`) inside it; at a line end; or at a `"` no backslash escapes (the end of a JSON
 * string the text sits in: the mask never swallows it, so serialized JSON stays JSON). A value
 * opened by `\"` (or `\'`) sits inside serialized JSON: its characters are read through the
 * JSON escapes (`\\` is one backslash of the value, `\"` one quote), so an escape inside the
 * value (`\\\"`) is stepped over too.
 */
function quotedValueEnd(text: string, from: number, quote: string): number {
  const q = quote[quote.length - 1];
  let at = from;
  if (quote.length === 1) {
    while (at < text.length) {
      const c = text[at];
      if (c === "\r" || c === "\n") return at;
      if (c === q || c === '"') return at;
      if (c !== "\\") at++;
      else if (text[at + 1] === "n" || text[at + 1] === "r") return at; // a line end, written as an escape in serialized JSON
      else at += 2; // an escape inside the value: both characters are the value's
    }
    return text.length;
  }
  let escaping = false; // the value's previous character was a backslash
  while (at < text.length) {
    const c = text[at];
    if (c === '"' || c === "\r" || c === "\n") return at;
    // one character of the JSON string: a pair `\x` stands for one
    const ch = c !== "\\" ? c : text[at + 1] === "n" || text[at + 1] === "r" ? "\n" : (text[at + 1] ?? "");
    if (escaping) escaping = false;
    else if (ch === "\\") escaping = true;
    else if (ch === q || ch === "\n") return at;
    at += c === "\\" ? 2 : 1;
  }
  return text.length;
}

/** Credential values after credential names masked; the scan resumes after each value, so it is linear. */
function maskAssignments(text: string): string {
  if (!MAYBE_ASSIGNMENT.test(text)) return text; // most text has no credential name before = or :
  const pieces: string[] = [];
  let copied = 0;
  SECRET_ASSIGNMENT.lastIndex = 0;
  for (let m = SECRET_ASSIGNMENT.exec(text); m; m = SECRET_ASSIGNMENT.exec(text)) {
    const [, keyQuote, valueQuote] = m;
    const start = m.index + m[0].length;
    // a quoted key's bare value, as in JSON (`"token": 123`, `"nextPageToken": null`): what
    // masking it as text would leave is no longer JSON (and the call could not be read back)
    const jsonBare = keyQuote !== undefined && valueQuote === undefined;
    if (jsonBare && (text[start] === "[" || text[start] === "{")) continue;
    const end = valueQuote !== undefined ? quotedValueEnd(text, start, valueQuote) : valueEnd(text, start, jsonBare ? BARE_JSON_END : BARE_END);
    if (end === start) continue; // a name with nothing after it
    if (jsonBare && KEPT_BARE.test(text.slice(start, end))) continue;
    pieces.push(text.slice(copied, start), jsonBare ? `${keyQuote}${MASK}${keyQuote}` : MASK);
    copied = end;
    SECRET_ASSIGNMENT.lastIndex = end;
  }
  if (copied === 0) return text;
  pieces.push(text.slice(copied));
  return pieces.join("");
}

/** What a SECRET_SHAPE match keeps in front of the mask. */
function kept(groups: Record<string, string | undefined>): string {
  for (const name in groups) if (groups[name] !== undefined) return groups[name]!;
  return "";
}

export function redactText(text: string): string {
  const shapes = text.includes("://") ? SECRET_SHAPE : SECRET_SHAPE_BUT_URLS;
  return maskAssignments(text.replace(shapes, (...args: unknown[]) => `${kept(args[args.length - 1] as Record<string, string | undefined>)}${MASK}`));
}

/** Whether a field or header of this name carries a credential. */
export function isSecretName(name: string): boolean {
  return name.length <= 128 && SECRET_NAME.test(name);
}

/** Keys that name the credential a `value` key beside them holds: `{"name": "Authorization", "value": "Basic …"}` (a HAR header). */
const PAIR_NAMES = ["name", "key", "header"] as const;

/** Whether `o` is a name/value pair of a credential: its `value` is one. */
function holdsCredentialValue(o: object): boolean {
  if (!("value" in o)) return false;
  const named = o as Record<string, unknown>;
  return PAIR_NAMES.some((k) => typeof named[k] === "string" && isSecretName(named[k] as string));
}

/** A deep copy of `value` without credential keys (a credential pair's value masked), with secret-looking strings masked. */
export function redactValue(value: unknown): unknown {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === "object") {
    const pair = holdsCredentialValue(value);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!isSecretName(k)) out[k] = pair && k === "value" ? MASK : redactValue(v);
    return out;
  }
  return value;
}

type TextMask = (text: string) => string;
const keepText: TextMask = (text) => text;

/** `value` with the values of credential keys replaced by the mark, and its strings through `maskText`. */
function maskFields(value: unknown, maskText: TextMask): unknown {
  if (typeof value === "string") return maskJsonText(value, maskText);
  if (Array.isArray(value)) return value.map((v) => maskFields(v, maskText));
  if (value && typeof value === "object") {
    const pair = holdsCredentialValue(value);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // whatever a credential key holds (a string, a number, a list or an object of them), but nothing and yes/no
      const credential = isSecretName(k) || (pair && k === "value");
      out[k] = credential && v !== null && v !== undefined && typeof v !== "boolean" ? MASK : maskFields(v, maskText);
    }
    return out;
  }
  return value;
}

/**
 * A deep copy of tool arguments with the values of credential keys replaced by a mark, so the
 * evidence still shows that a key was passed. Arguments given as a JSON string (OpenAI) are
 * read, masked and written back; other strings are masked as text.
 */
export const maskSecretFields = (value: unknown): unknown => maskFields(value, redactText);

/**
 * The same by key name only, for values whose serialized text is masked as a whole afterwards
 * (message parts): the text is not masked twice.
 */
export const maskSecretKeys = (value: unknown): unknown => maskFields(value, keepText);

/** Whether a JSON value has a credential-named field (or name/value pair) at any depth. */
function hasSecretField(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasSecretField);
  if (value && typeof value === "object") return holdsCredentialValue(value) || Object.entries(value).some(([k, v]) => isSecretName(k) || hasSecretField(v));
  return false;
}

/**
 * A string holding a JSON object or array with its credential fields masked (rewritten only
 * when it has such a field); any other text through `maskText`.
 */
function maskJsonText(text: string, maskText: TextMask): string {
  const trimmed = text.trim();
  const first = trimmed.charAt(0);
  const last = trimmed.charAt(trimmed.length - 1);
  if ((first === "{" && last === "}") || (first === "[" && last === "]")) {
    // Text that is not JSON (e.g. a stream cut mid-argument) is masked as text below.
    const parsed = tryParseJson(trimmed);
    if (parsed !== undefined && hasSecretField(parsed)) return JSON.stringify(maskFields(parsed, maskText));
  }
  return maskText(text);
}

/**
 * A tool's output as stored: text (JSON text with credential fields masked by key, as a
 * structure: `{"db_password": {"value": …}}` too), or a value written as JSON the same way.
 */
export function storedResult(value: unknown): string {
  const masked = maskSecretFields(value ?? null);
  return typeof masked === "string" ? masked : (JSON.stringify(masked) ?? "null");
}

/** Tool arguments as stored: JSON text with credential fields and credential-shaped text masked. */
export function storedArguments(args: unknown): string {
  return JSON.stringify(maskSecretFields(args)) ?? "null";
}
