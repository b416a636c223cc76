import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/domain/calls";
import {
  type CallSummary,
  DEFAULT_LOOP_THRESHOLDS,
  detectDeadLoop,
  isIdleToolCall,
  pushWindow,
  summarizeCall,
} from "@/lib/detect/deadLoop";
import { canonicalJson, fingerprintArgs, jaccard } from "@/lib/detect/text";

type Tool = { name: string; args: unknown };

let seq = 0;
function call(opts: { tools?: Tool[]; text?: string; inputTokens?: number | null }): CallSummary {
  const parts: ChatMessage["parts"] = [];
  if (opts.text !== undefined) parts.push({ type: "text", content: opts.text });
  for (const t of opts.tools ?? []) {
    parts.push({ type: "tool_call", id: `id_${seq++}`, name: t.name, arguments: t.args });
  }
  return summarizeCall([{ role: "assistant", parts }], opts.inputTokens ?? null);
}

const bash = (command: string): Tool => ({ name: "bash", args: { command } });
const read = (path: string): Tool => ({ name: "read_file", args: JSON.stringify({ path }) });
const repeat = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

// Word sets with a known Jaccard: `shared` common words, then `onlyA`/`onlyB` own words.
function words(prefix: string, n: number): string[] {
  return repeat(n, (i) => `${prefix}${i}`);
}
const BASE17 = words("w", 17);
const BASE18 = words("w", 18);

describe("text helpers", () => {
  it("computes word Jaccard, case-insensitively", () => {
    expect(jaccard("The cat sat", "the CAT  sat")).toBe(1);
    expect(jaccard("a b c d", "a b c e")).toBe(3 / 5);
    expect(jaccard([...BASE17, "x1", "x2"].join(" "), [...BASE17, "y1"].join(" "))).toBe(0.85);
  });

  it("scores empty texts 0", () => {
    expect(jaccard("", "")).toBe(0);
    expect(jaccard("  ", "hello")).toBe(0);
  });

  it("uses character bigrams for CJK text, ignoring whitespace", () => {
    // {你好, 好世, 世界} vs {你好, 好世, 世人}: 2 shared of 4
    expect(jaccard("你好世界", "你好世人")).toBe(0.5);
    expect(jaccard("你好 世界", "你好世界")).toBe(1);
    expect(jaccard("こんにちは", "こんにちわ")).toBe(3 / 5);
    expect(jaccard("안녕하세요", "안녕하세요")).toBe(1);
  });

  it("fingerprints canonical arguments", () => {
    expect(fingerprintArgs('{"b":1,"a":2}')).toBe(fingerprintArgs({ a: 2, b: 1 }));
    expect(fingerprintArgs({ x: { d: 1, c: [1, { f: 1, e: 2 }] } })).toBe(
      fingerprintArgs({ x: { c: [1, { e: 2, f: 1 }], d: 1 } }),
    );
    expect(fingerprintArgs({ a: 1 })).not.toBe(fingerprintArgs({ a: 2 }));
    expect(fingerprintArgs({ a: 1 })).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprintArgs("not json")).toBe(fingerprintArgs("not json"));
  });

  it("writes canonical JSON with sorted keys and no whitespace", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
    expect(canonicalJson(undefined)).toBe("null");
  });
});

describe("isIdleToolCall", () => {
  it("accepts idle commands as tools or shell scripts", () => {
    expect(isIdleToolCall("sleep", { seconds: 5 })).toBe(true);
    expect(isIdleToolCall("echo", {})).toBe(true);
    expect(isIdleToolCall("bash", { command: "sleep 5 && echo waiting" })).toBe(true);
    expect(isIdleToolCall("Bash", '{"command":"date; pwd"}')).toBe(true);
    expect(isIdleToolCall("run_command", { cmd: "sleep 30 || true\necho done | cat_not" })).toBe(false);
    expect(isIdleToolCall("shell", { command: ["bash", "-lc", "sleep 10; echo still waiting"] })).toBe(true);
    expect(isIdleToolCall("any_tool", { command: "/bin/sleep 2" })).toBe(true);
    expect(isIdleToolCall("terminal", "sleep 1")).toBe(true);
  });

  it("rejects scripts doing real work", () => {
    expect(isIdleToolCall("bash", { command: "sleep 5 && ls" })).toBe(false);
    expect(isIdleToolCall("bash", { command: "echo $(rm -rf build)" })).toBe(false);
    expect(isIdleToolCall("bash", { command: "" })).toBe(false);
    expect(isIdleToolCall("read_file", { path: "sleep" })).toBe(false);
    expect(isIdleToolCall("search", "sleep 5")).toBe(false);
    // a long script is no polling (and is not split and scanned on every call)
    expect(isIdleToolCall("bash", { command: `echo ${"x".repeat(5000)}` })).toBe(false);
    expect(isIdleToolCall("bash", { command: `sleep 1${")".repeat(5000)}` })).toBe(false);
    expect(isIdleToolCall("bash", { command: "(date)}" })).toBe(true); // closing brackets trimmed
  });
});

describe("summarizeCall / pushWindow", () => {
  it("summarizes tool calls, text and idleness", () => {
    const s = summarizeCall(
      [
        { role: "assistant", parts: [{ type: "text", content: "waiting" }, { type: "reasoning", content: "r" }] },
        { role: "assistant", parts: [{ type: "tool_call", id: "t", name: "bash", arguments: '{"command":"sleep 5"}' }] },
      ],
      undefined,
    );
    expect(s).toEqual({
      tools: [`bash#${fingerprintArgs({ command: "sleep 5" })}`],
      text: "waiting",
      inputTokens: null,
      idle: true,
    });
    expect(summarizeCall([], 10).idle).toBe(false);
    expect(summarizeCall([{ role: "assistant", parts: [{ type: "text", content: "x".repeat(5000) }] }], 1).text)
      .toHaveLength(4000);
  });

  it("keeps the first 64 tool calls of a call and how many there were, so a huge output stays small and still compares", () => {
    const many = (n: number, command = "ls") => call({ tools: repeat(n, () => bash(command)) });
    const a = many(10_000);
    expect(a.tools).toHaveLength(65);
    expect(a.tools.at(-1)).toBe("… 10000 tool calls");
    expect(a.tools).toEqual(many(10_000).tools);
    expect(a.tools).not.toEqual(many(10_001).tools);
    expect(many(64).tools).toHaveLength(64);
    // a name of any length (a raw exchange's adapter does not refuse it) is kept to 512 characters
    expect(call({ tools: [{ name: "n".repeat(10_000), args: {} }] }).tools[0]).toMatch(/^n{512}#[0-9a-f]{16}$/);
    // idle is judged on every tool call, not only those kept
    expect(call({ tools: [...repeat(100, () => bash("sleep 1")), bash("rm -rf build")] }).idle).toBe(false);
  });

  it("keeps the last `size` summaries", () => {
    let w: CallSummary[] = [];
    for (let i = 0; i < 12; i++) w = pushWindow(w, call({ text: `t${i}` }));
    expect(w.map((c) => c.text)).toEqual(repeat(10, (i) => `t${i + 2}`));
    expect(pushWindow(w, call({}), 3)).toHaveLength(3);
  });
});

describe("detectDeadLoop: tool_sequence_repetition", () => {
  const other = call({ tools: [read("other.ts")] });

  it("fires on 5 identical tool sequences", () => {
    const w = [other, ...repeat(5, () => call({ tools: [bash("npm test"), read("a.ts")] }))];
    expect(detectDeadLoop(w)).toEqual({
      rule: "tool_sequence_repetition",
      repeat_count: 5,
      repeated_tools: ["bash", "read_file"],
    });
  });

  it("names the tools as called: a name holding # whole, and a long list up to its cap", () => {
    const tools = [{ name: "mcp#search", args: {} }, ...repeat(64, () => bash("ls"))];
    const w = repeat(5, () => call({ tools }));
    expect(detectDeadLoop(w)).toEqual({
      rule: "tool_sequence_repetition",
      repeat_count: 5,
      repeated_tools: ["mcp#search", ...repeat(63, () => "bash"), "… 65 tool calls"],
    });
  });

  it("does not fire on 4", () => {
    const w = [other, ...repeat(4, () => call({ tools: [bash("npm test"), read("a.ts")] }))];
    expect(detectDeadLoop(w)).toBeNull();
  });

  it("does not fire for the same tool with different arguments", () => {
    const w = repeat(8, (i) => call({ tools: [read(`file${i}.ts`)] }));
    expect(detectDeadLoop(w)).toBeNull();
  });

  it("skips text-only calls in between", () => {
    const w = [
      call({ tools: [bash("npm test")] }),
      call({ text: "Let me try again." }),
      call({ tools: [bash("npm test")] }),
      call({ tools: [bash("npm test")] }),
      call({ text: "Still failing, one more time." }),
      call({ tools: [bash("npm test")] }),
      call({ tools: [bash("npm test")] }),
    ];
    expect(detectDeadLoop(w)).toMatchObject({ rule: "tool_sequence_repetition", repeat_count: 5 });
  });

  it("counts the whole trailing run", () => {
    const w = repeat(7, () => call({ tools: [bash("npm test")] }));
    expect(detectDeadLoop(w)?.repeat_count).toBe(7);
  });
});

describe("detectDeadLoop: output_similarity_loop", () => {
  it("does not fire at exactly 0.85 (17 shared of 20)", () => {
    const w = [
      call({ text: [...BASE17, "a1", "a2"].join(" ") }),
      call({ text: [...BASE17, "b1"].join(" ") }),
      call({ text: [...BASE17, "c1"].join(" ") }),
    ];
    expect(jaccard(w[0].text, w[1].text)).toBe(0.85);
    expect(jaccard(w[0].text, w[2].text)).toBe(0.85);
    expect(detectDeadLoop(w)).toBeNull();
  });

  it("fires above 0.85 (18 shared of 21)", () => {
    const first = [...BASE18, "a1", "a2"].join(" ");
    const w = [call({ text: first }), call({ text: [...BASE18, "b1"].join(" ") }), call({ text: [...BASE18, "c1"].join(" ") })];
    expect(detectDeadLoop(w)).toEqual({
      rule: "output_similarity_loop",
      repeat_count: 3,
      similarity: 18 / 21,
      output_snippet: first.slice(0, 200),
    });
  });

  it("needs 3 texts, and skips calls without text", () => {
    const text = [...BASE18, "a1"].join(" ");
    expect(detectDeadLoop([call({ text }), call({ text })])).toBeNull();
    const w = [call({ text }), call({ tools: [read("x")] }), call({ text }), call({ tools: [read("y")] }), call({ text })];
    expect(detectDeadLoop(w)).toMatchObject({ rule: "output_similarity_loop", repeat_count: 3, similarity: 1 });
  });

  it("compares CJK outputs by character bigrams", () => {
    const base = "我正在等待子代理完成任务，请稍候，我会继续检查它的状态并及时向你报告最新的进展情况";
    const w = [call({ text: base }), call({ text: `${base}。` }), call({ text: `${base}！` })];
    const finding = detectDeadLoop(w);
    expect(finding?.rule).toBe("output_similarity_loop");
    expect(finding?.similarity).toBeGreaterThan(0.85);
    // Without bigrams each CJK text is one "word" and no two would match.
    const different = [call({ text: base }), call({ text: "完全不同的一段话，讨论的是今天的天气和午饭吃什么" }), call({ text: base })];
    expect(detectDeadLoop(different)).toBeNull();
  });
});

describe("detectDeadLoop: token_burn_no_progress", () => {
  const text = [...BASE18, "a1"].join(" ");

  it("fires when input tokens strictly grow and outputs stay similar", () => {
    const w = [call({ text: "unrelated start" }), ...repeat(5, (i) => call({ text, inputTokens: 1000 + i * 500 }))];
    expect(detectDeadLoop(w)).toEqual({
      rule: "token_burn_no_progress",
      repeat_count: 5,
      similarity: 1,
      input_tokens_start: 1000,
      input_tokens_end: 3000,
      output_snippet: text.slice(0, 200),
    });
  });

  it("does not fire with flat input tokens (the similarity rule matches instead)", () => {
    const w = repeat(5, () => call({ text, inputTokens: 1000 }));
    expect(detectDeadLoop(w)?.rule).toBe("output_similarity_loop");
    const noSimilarity = { ...DEFAULT_LOOP_THRESHOLDS, similarityCount: 99 };
    expect(detectDeadLoop(w, noSimilarity)).toBeNull();
  });

  it("does not fire with unknown input tokens or over only 4 calls", () => {
    const noSimilarity = { ...DEFAULT_LOOP_THRESHOLDS, similarityCount: 99 };
    const unknown = repeat(5, (i) => call({ text, inputTokens: i === 2 ? null : 1000 + i }));
    expect(detectDeadLoop(unknown, noSimilarity)).toBeNull();
    const four = repeat(4, (i) => call({ text, inputTokens: 1000 + i }));
    expect(detectDeadLoop(four, noSimilarity)).toBeNull();
  });
});

describe("detectDeadLoop: busy_wait", () => {
  // Different sleep lengths, so the tool sequences differ and only busy_wait can match.
  const idle = (i: number): CallSummary => call({ tools: [bash(`sleep ${i + 1} && echo waiting`)] });

  it("fires on 10 consecutive idle calls", () => {
    const w = repeat(10, idle);
    expect(detectDeadLoop(w)).toEqual({ rule: "busy_wait", repeat_count: 10, repeated_tools: ["bash"] });
  });

  it("does not fire on 9", () => {
    const w = [call({ tools: [bash("make build")] }), ...repeat(9, idle)];
    expect(detectDeadLoop(w)).toBeNull();
  });

  it("lists the distinct idle tools and wins over tool_sequence_repetition", () => {
    const w = repeat(10, (i) => call({ tools: i % 2 ? [{ name: "sleep", args: { s: 5 } }] : [bash("date")] }));
    expect(detectDeadLoop(w)).toEqual({ rule: "busy_wait", repeat_count: 10, repeated_tools: ["bash", "sleep"] });
  });
});

describe("detectDeadLoop: no loop", () => {
  it("returns null for an empty or varied window", () => {
    expect(detectDeadLoop([])).toBeNull();
    const w = [
      call({ text: "Reading the config.", tools: [read("config.ts")] }),
      call({ text: "Now running the tests.", tools: [bash("npm test")] }),
      call({ text: "All tests pass; summarizing the change for you." }),
    ];
    expect(detectDeadLoop(w)).toBeNull();
  });
});
