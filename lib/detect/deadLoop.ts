// Dead-loop detection over a conversation's window of recent calls (SPEC §3.3).

import type { ChatMessage } from "../domain/calls";
import { fingerprintArgs, jaccard } from "./text";
import { MAX_TOOL_REF_CHARS } from "./toolBalance";

/** What the rules need of one call (stored with its conversation's window: no more than that). */
export type CallSummary = {
  /** "name#argsFingerprint" per tool call of the output, in order; empty if no tool call */
  tools: string[];
  /** output text, capped at TEXT_CAP chars */
  text: string;
  inputTokens: number | null;
  /** has ≥ 1 tool call and every one is an idle command */
  idle: boolean;
};

export type LoopThresholds = {
  toolRepeat: number;
  similarityCount: number;
  similarity: number;
  tokenBurnCalls: number;
  busyWaitCalls: number;
};

export const DEFAULT_LOOP_THRESHOLDS: LoopThresholds = {
  toolRepeat: 5,
  similarityCount: 3,
  similarity: 0.85,
  tokenBurnCalls: 5,
  busyWaitCalls: 10,
};

export type DeadLoopRule =
  | "busy_wait"
  | "tool_sequence_repetition"
  | "token_burn_no_progress"
  | "output_similarity_loop";

export type DeadLoopFinding = {
  rule: DeadLoopRule;
  repeat_count: number;
  repeated_tools?: string[];
  similarity?: number;
  input_tokens_start?: number;
  input_tokens_end?: number;
  output_snippet?: string;
};

const TEXT_CAP = 4000;
const SNIPPET_CAP = 200;

// ---------------------------------------------------------------------------------------------
// Idle commands

const IDLE_COMMANDS = new Set(["echo", "date", "sleep", "true", "pwd"]);
const SHELL_NAME = /(^|[_.\-\s])(bash|sh|zsh|shell|exec|terminal|command|cmd)([_.\-\s]|$)/;
const SHELLS = new Set(["bash", "sh", "zsh", "dash"]);

function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/** argv form, e.g. Codex's ["bash", "-lc", "sleep 5"]: the script is what the shell runs. */
function argvToScript(argv: string[]): string {
  const [bin, flag, script] = argv;
  const base = bin?.split("/").pop() ?? "";
  if (SHELLS.has(base) && flag && /^-\w*c$/.test(flag) && script !== undefined) return script;
  return argv.join(" ");
}

function asScript(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string")) {
    return argvToScript(v as string[]);
  }
  return null;
}

/** The shell script a tool call runs, or null when it is not a shell-like call. */
function commandOf(name: string, rawArgs: unknown): string | null {
  const args = parseMaybeJson(rawArgs);
  const shellName = SHELL_NAME.test(name.toLowerCase());
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const o = args as Record<string, unknown>;
    const script = asScript(o.command) ?? asScript(o.cmd);
    if (script !== null) return script;
    if (shellName) return asScript(o.script) ?? asScript(o.input);
    return null;
  }
  return shellName ? asScript(args) : null;
}

/** Longer scripts are never idle: polling is a short command line (and a long one is not split and scanned on every call). */
const MAX_IDLE_SCRIPT = 4096;

/** Each command of the script (split on ; && || | and newlines) is an idle one. */
function isIdleScript(script: string): boolean {
  // A command substitution may run anything, so such a script is never idle.
  if (script.length > MAX_IDLE_SCRIPT || script.includes("$(") || script.includes("`")) return false;
  const commands = script
    .split(/&&|\|\||[;|\n]/)
    .map((c) => c.trim().replace(/^[({\s]+/, ""))
    .filter((c) => c !== "" && !/^[)}]+$/.test(c));
  if (commands.length === 0) return false;
  return commands.every((c) => {
    const bin = c.split(/\s+/)[0].split("/").pop() ?? "";
    return IDLE_COMMANDS.has(withoutClosers(bin));
  });
}

/**
 * `word` without the closing brackets and semicolons it ends with (`date)` → `date`). A loop
 * from the end: the regex /[)};]+$/ tries every start in a run of them (quadratic in its length).
 */
function withoutClosers(word: string): string {
  let end = word.length;
  while (end > 0 && (word[end - 1] === ")" || word[end - 1] === "}" || word[end - 1] === ";")) end--;
  return word.slice(0, end);
}

export function isIdleToolCall(name: string, args: unknown): boolean {
  if (IDLE_COMMANDS.has(name.toLowerCase())) return true;
  const script = commandOf(name, args);
  return script !== null && isIdleScript(script);
}

// ---------------------------------------------------------------------------------------------
// Window

/**
 * Tool calls of one call kept in its summary: a summary is stored with the conversation's window
 * (read and written again by every later call) and quoted by a finding. Past this many, the rest
 * stand as one entry with the total, so two calls still compare equal only when their first
 * MAX_SUMMARY_TOOLS and their counts are.
 */
const MAX_SUMMARY_TOOLS = 64;

const capped = (list: string[]): string[] =>
  list.length > MAX_SUMMARY_TOOLS ? [...list.slice(0, MAX_SUMMARY_TOOLS), `… ${list.length} tool calls`] : list;

/** The tool name of an entry of `CallSummary.tools` (the fingerprint holds no "#"; the cap's entry is kept whole). */
const toolName = (ref: string): string => {
  const hash = ref.lastIndexOf("#");
  return hash < 0 ? ref : ref.slice(0, hash);
};

export function summarizeCall(output: ChatMessage[], inputTokens: number | null | undefined): CallSummary {
  const tools: string[] = [];
  const texts: string[] = [];
  let idle = true;
  for (const m of output) {
    for (const p of m.parts) {
      if (p.type === "text") texts.push(p.content);
      if (p.type !== "tool_call") continue;
      const name = p.name.slice(0, MAX_TOOL_REF_CHARS);
      tools.push(`${name}#${fingerprintArgs(p.arguments)}`);
      idle = idle && isIdleToolCall(p.name, p.arguments);
    }
  }
  return {
    tools: capped(tools),
    text: texts.join("\n").slice(0, TEXT_CAP),
    inputTokens: typeof inputTokens === "number" && Number.isFinite(inputTokens) ? inputTokens : null,
    idle: tools.length > 0 && idle,
  };
}

export function pushWindow(window: CallSummary[], s: CallSummary, size = 10): CallSummary[] {
  if (size <= 0) return [];
  return [...window, s].slice(-size);
}

// ---------------------------------------------------------------------------------------------
// Rules

/** Length of the trailing run of items for which `same(item, last)` holds. */
function trailingRun<T>(items: T[], same: (a: T, b: T) => boolean): number {
  const last = items[items.length - 1];
  if (last === undefined) return 0;
  let n = 0;
  for (let i = items.length - 1; i >= 0 && same(items[i], last); i--) n++;
  return n;
}

/**
 * The longest trailing slice of at least `min` items that satisfies `ok`, or null when the
 * last `min` items do not. The reported run may grow past the threshold to show the extent.
 */
function longestTrailing<T, R>(items: T[], min: number, ok: (run: T[]) => R | null): { run: T[]; result: R } | null {
  const need = Math.max(1, Math.floor(min));
  if (items.length < need) return null;
  let best: { run: T[]; result: R } | null = null;
  for (let k = need; k <= items.length; k++) {
    const run = items.slice(-k);
    const result = ok(run);
    if (result === null) {
      if (k === need) return null;
      continue;
    }
    best = { run, result };
  }
  return best;
}

/** Minimum Jaccard of every text with the first one, or null if one is not above `threshold`. */
function similarToFirst(texts: string[], threshold: number): number | null {
  let min = 1;
  for (let i = 1; i < texts.length; i++) {
    const sim = jaccard(texts[0], texts[i]);
    if (!(sim > threshold)) return null;
    min = Math.min(min, sim);
  }
  return min;
}

const hasText = (c: CallSummary): boolean => c.text.trim() !== "";
const sameSequence = (a: CallSummary, b: CallSummary): boolean =>
  a.tools.length === b.tools.length && a.tools.every((t, i) => t === b.tools[i]);

function busyWait(window: CallSummary[], t: LoopThresholds): DeadLoopFinding | null {
  const n = trailingRun(window, (c) => c.idle);
  if (n === 0 || n < Math.max(1, t.busyWaitCalls)) return null;
  const names = new Set(window.slice(-n).flatMap((c) => c.tools.map(toolName)));
  return { rule: "busy_wait", repeat_count: n, repeated_tools: [...names] };
}

function toolSequenceRepetition(window: CallSummary[], t: LoopThresholds): DeadLoopFinding | null {
  // Text-only calls are skipped: a loop may be interleaved with commentary.
  const toolCalls = window.filter((c) => c.tools.length > 0);
  const n = trailingRun(toolCalls, sameSequence);
  if (n === 0 || n < Math.max(1, t.toolRepeat)) return null;
  const last = toolCalls[toolCalls.length - 1];
  return { rule: "tool_sequence_repetition", repeat_count: n, repeated_tools: last.tools.map(toolName) };
}

function tokenBurn(window: CallSummary[], t: LoopThresholds): DeadLoopFinding | null {
  const found = longestTrailing(window, t.tokenBurnCalls, (run) => {
    const tokens = run.map((c) => c.inputTokens);
    for (let i = 0; i < tokens.length; i++) {
      const cur = tokens[i];
      if (cur === null) return null;
      const prev = i > 0 ? tokens[i - 1] : null;
      if (prev !== null && !(cur > prev)) return null;
    }
    if (!run.every(hasText)) return null;
    return similarToFirst(run.map((c) => c.text), t.similarity);
  });
  if (found === null) return null;
  const { run, result } = found;
  return {
    rule: "token_burn_no_progress",
    repeat_count: run.length,
    similarity: result,
    input_tokens_start: run[0].inputTokens ?? undefined,
    input_tokens_end: run[run.length - 1].inputTokens ?? undefined,
    output_snippet: run[0].text.slice(0, SNIPPET_CAP),
  };
}

function outputSimilarity(window: CallSummary[], t: LoopThresholds): DeadLoopFinding | null {
  const texts = window.filter(hasText).map((c) => c.text);
  const found = longestTrailing(texts, t.similarityCount, (run) => similarToFirst(run, t.similarity));
  if (found === null) return null;
  return {
    rule: "output_similarity_loop",
    repeat_count: found.run.length,
    similarity: found.result,
    output_snippet: found.run[0].slice(0, SNIPPET_CAP),
  };
}

const RULES = [busyWait, toolSequenceRepetition, tokenBurn, outputSimilarity];

/** The first dead-loop rule the window matches, in SPEC order of specificity, or null. */
export function detectDeadLoop(
  window: CallSummary[],
  t: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
): DeadLoopFinding | null {
  for (const rule of RULES) {
    const finding = rule(window, t);
    if (finding !== null) return finding;
  }
  return null;
}
