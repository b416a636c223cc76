// Plain-text output: terminal-safe strings, local times from nanoseconds, aligned tables and
// JSON re-indented without ever converting numbers (19-digit nanoseconds stay exact).
import { NS_PER_MS } from "../domain/time";

// Control characters (C0 except tab/newline, DEL, C1) and bidi overrides: a server string (an
// agent name, an error body) must not be able to move the cursor, recolour or hide text.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Multi-line text from the server, without terminal control sequences. */
export function safeText(value: string): string {
  return value.replace(UNSAFE, "");
}

/** One line of text from the server: control characters dropped, tabs and newlines as spaces. */
export function safeLine(value: string): string {
  return safeText(value).replace(/[\t\n]+/g, " ");
}

/**
 * Raw JSON from the server, for `--json`: JSON escapes C0 characters inside strings already;
 * DEL and C1 (which some terminals read as CSI) are escaped too. The value is unchanged.
 */
export function safeJson(text: string): string {
  return text.replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Local time `YYYY-MM-DD HH:MM:SS` of integer nanoseconds given as exact decimal text. */
export function localTime(ns: string): string {
  if (!/^-?\d+$/.test(ns)) return ns;
  const date = new Date(Number(BigInt(ns) / NS_PER_MS));
  if (Number.isNaN(date.getTime())) return ns;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}

/** `value` cut to `max` characters, marking the cut with an ellipsis. */
export function shorten(value: string, max: number): string {
  const chars = Array.from(value);
  return chars.length <= max ? value : `${chars.slice(0, max - 1).join("")}…`;
}

export type Align = "left" | "right";
export type Column = { header: string; align?: Align };

const width = (s: string) => Array.from(s).length;

/** An aligned table: a header row, then one row per item, columns two spaces apart. */
export function table(columns: Column[], rows: string[][]): string {
  const cells = rows.map((r) => r.map(safeLine));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i] ?? ""))));
  const render = (r: string[]) =>
    columns
      .map((c, i) => {
        const cell = r[i] ?? "";
        const pad = " ".repeat(widths[i] - width(cell));
        return c.align === "right" ? pad + cell : i === columns.length - 1 ? cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  return [render(columns.map((c) => c.header)), ...cells.map(render)].join("\n") + "\n";
}

/** `key: value` lines with the keys aligned. */
export function fields(pairs: Array<[string, string]>): string {
  const clean = pairs.map(([k, v]) => [safeLine(k), safeLine(v)]);
  const w = Math.max(...clean.map(([k]) => width(k)));
  return clean.map(([k, v]) => `${k}:${" ".repeat(w - width(k) + 1)}${v}`).join("\n") + "\n";
}

function nextSignificant(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i += 1;
  return i;
}

/**
 * Re-indents JSON text token by token. Numbers are copied as written (no parse), so integers
 * beyond 2^53 stay exact. Returns null when `text` is not valid JSON.
 */
export function prettyJson(text: string, indent = "  "): string | null {
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  let out = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === "{" || ch === "[") {
      const next = nextSignificant(text, i + 1);
      if (text[next] === (ch === "{" ? "}" : "]")) {
        out += ch + text[next];
        i = next;
      } else {
        depth += 1;
        out += `${ch}\n${indent.repeat(depth)}`;
      }
    } else if (ch === "}" || ch === "]") {
      depth -= 1;
      out += `\n${indent.repeat(depth)}${ch}`;
    } else if (ch === ",") {
      out += `,\n${indent.repeat(depth)}`;
    } else if (ch === ":") {
      out += ": ";
    } else if (!/\s/.test(ch)) {
      out += ch;
    }
  }
  return out;
}

/** `n thing` / `n things`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
