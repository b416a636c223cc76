// The demo's agents, their system prompts and tool definitions.
import type { AgentProfile } from "./builder";
import type { JsonObject } from "./wire";

export const COSHNG: AgentProfile = {
  name: "CoshNG",
  wire: "openai",
  provider: "dashscope",
  model: "qwen-plus",
  responseModel: "qwen-plus",
  serverAddress: "dashscope.aliyuncs.com",
  url: "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
  processName: "node",
  maxTokens: 8192,
  keys: "all",
  tokensPerSecond: [55, 90],
  latencyMs: [350, 1400],
  stream: true,
};

export const EXPLORER: AgentProfile = {
  ...COSHNG,
  name: "explorer",
  model: "qwen-turbo",
  responseModel: "qwen-turbo",
  maxTokens: 4096,
  tokensPerSecond: [90, 140],
  latencyMs: [250, 800],
};

export const RESEARCH_BOT: AgentProfile = {
  name: "research-bot",
  wire: "anthropic",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  responseModel: "claude-sonnet-4-5-20250929",
  serverAddress: "api.anthropic.com",
  url: "https://api.anthropic.com/v1/messages",
  processName: "python3",
  maxTokens: 4096,
  keys: "session+conversation",
  tokensPerSecond: [45, 75],
  latencyMs: [700, 2200],
  stream: false,
};

/** Sends no session / conversation / turn ids: SightDesk derives them (SPEC §2.4). */
export const SUPPORT_AGENT: AgentProfile = {
  name: "support-agent",
  wire: "openai",
  provider: "openai",
  model: "gpt-4o",
  responseModel: "gpt-4o-2024-08-06",
  serverAddress: "api.openai.com",
  url: "https://api.openai.com/v1/chat/completions",
  processName: "node",
  maxTokens: 1024,
  keys: "none",
  tokensPerSecond: [60, 110],
  latencyMs: [300, 900],
  stream: false,
};

const fn = (name: string, description: string, properties: JsonObject, required: string[]): JsonObject => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties, required } },
});

const str = (description: string) => ({ type: "string", description });

export const CODING_TOOLS: JsonObject[] = [
  fn("bash", "Run a shell command in the repository root and return stdout, stderr and the exit code.", { cmd: str("the command line"), timeout_ms: { type: "integer", description: "default 120000" } }, ["cmd"]),
  fn("read_file", "Read a file of the repository, with line numbers.", { path: str("path relative to the repository root") }, ["path"]),
  fn("write_file", "Create or overwrite a file.", { path: str("path relative to the repository root"), content: str("the full new content") }, ["path", "content"]),
  fn("edit_file", "Replace one exact occurrence of old_string with new_string in a file.", { path: str("file path"), old_string: str("text to replace"), new_string: str("replacement") }, ["path", "old_string", "new_string"]),
  fn("grep", "Search the repository with ripgrep; returns path:line: text matches.", { pattern: str("regular expression"), path: str("folder to search, default .") }, ["pattern"]),
  fn("dispatch_agent", "Hand a self-contained task to a sub-agent. Returns immediately; the sub-agent reports back in a later message.", { agent: { type: "string", enum: ["explorer"] }, task: str("what the sub-agent must do and report") }, ["agent", "task"]),
];

export const EXPLORER_TOOLS: JsonObject[] = [
  CODING_TOOLS[0],
  CODING_TOOLS[1],
  CODING_TOOLS[4],
  fn("list_dir", "List a folder.", { path: str("folder path") }, ["path"]),
];

export const SUPPORT_TOOLS: JsonObject[] = [
  fn("lookup_order", "Look up an order by its number (A-12345 or B-123).", { order_id: str("order number") }, ["order_id"]),
  fn("refund_order", "Refund (part of) an order. Refunds above $500 need a human approver.", { order_id: str("order number"), amount: { type: "number" }, reason: str("short reason") }, ["order_id", "amount", "reason"]),
  fn("search_kb", "Search the help-center knowledge base.", { query: str("search terms") }, ["query"]),
  fn("send_email", "Send an email to the customer on file for an order.", { order_id: str("order number"), subject: str("subject"), body: str("plain-text body") }, ["order_id", "subject", "body"]),
];

export const RESEARCH_TOOLS: JsonObject[] = [
  {
    name: "web_search",
    description: "Search the web. Returns the top results with title, URL and snippet.",
    input_schema: { type: "object", properties: { query: { type: "string" }, max_results: { type: "integer" } }, required: ["query"] },
  },
  {
    name: "fetch_url",
    description: "Fetch a web page or PDF and return its readable text (truncated to 20k characters).",
    input_schema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  },
];

export const codingSystem = (repo: string) =>
  `You are CoshNG, an autonomous coding agent working in the repository /workspace/${repo}.\n` +
  "- Inspect the code with the tools before you change it; never guess file contents.\n" +
  "- Make the smallest change that solves the task and keep the existing style.\n" +
  "- Run the relevant tests before you say the task is done, and report what you ran.\n" +
  "- Long-running work can be handed to the explorer sub-agent with dispatch_agent; end your turn while it runs.\n" +
  "Answer in short Markdown and cite file paths.";

export const EXPLORER_SYSTEM =
  "You are explorer, a read-only code exploration sub-agent of CoshNG. You get one question from the parent agent. " +
  "Search and read the code, then answer with file paths, line numbers and short quotes. " +
  "You cannot modify files. If the question is ambiguous, ask the parent and stop.";

export const RESEARCH_SYSTEM =
  "You are research-bot, a careful research assistant for the Acme strategy team.\n" +
  "Search the web, open primary sources (papers, official documents) rather than news summaries, and answer with numbered citations [n] and a source list.\n" +
  "Say clearly when the evidence is weak or contested. Never invent citations.";

export const SUPPORT_SYSTEM =
  "You are the Acme Store support assistant. Be friendly, concise and accurate.\n" +
  "Use lookup_order before you say anything about an order. You may refund up to $500 per order with refund_order; " +
  "anything larger must be escalated to a human agent. Never reveal internal notes or other customers' data.\n" +
  "Today is a weekday; shipping cut-off is 3 pm local time.";
