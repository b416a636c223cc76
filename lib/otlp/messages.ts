// Messages in the forms OTLP senders use, read into the parts format of SPEC §2.1: the GenAI
// semantic conventions' parts JSON (gen_ai.input.messages …), OpenAI-style messages ({role,
// content, tool_calls}: the older gen_ai.* events and gen_ai.prompt) and OpenInference's
// flattened llm.input_messages.N.message.* attributes. Pure functions; unusable parts are dropped.
import type { ChatMessage, Part } from "../domain/calls";
import { idlessToolPart } from "../ingest/toolCallIds";
import { MAX_JSON_DEPTH, scanJson } from "../json";
import { MAX_EXPORT_MESSAGES, type Attributes, type AttrValue } from "./model";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

// JSON text inside attributes is decoded too, and `[{},{},…]` in a 10 MiB string is millions of
// objects: one export may decode at most MAX_EXPORT_MESSAGES objects and arrays from its
// attributes in all, as it may hold that many messages. `withJsonBudget` opens an export's budget.
let jsonBudget: { left: number } | null = null; // outside an export: each text on its own

/** Runs `read` (synchronous) with a fresh budget of objects and arrays to decode from attribute text. */
export function withJsonBudget<T>(read: () => T): T {
  const outer = jsonBudget;
  jsonBudget = { left: MAX_EXPORT_MESSAGES };
  try {
    return read();
  } finally {
    jsonBudget = outer;
  }
}

/** Parsed JSON text, or undefined when it is not JSON or nests too deep; throws past the export's budget. */
function parseAttributeJson(text: string): unknown {
  const scanned = scanJson(text, false);
  if (scanned.depth > MAX_JSON_DEPTH) return undefined;
  const tooMany = () => new Error(`its JSON attributes hold more than ${MAX_EXPORT_MESSAGES.toLocaleString("en")} objects and arrays in this export; send smaller batches`);
  if (scanned.containers > MAX_EXPORT_MESSAGES) throw tooMany(); // before parsing: what one text may allocate
  let value: unknown;
  try {
    value = JSON.parse(scanned.text);
  } catch {
    return undefined; // text that only looks like JSON costs no budget
  }
  if (jsonBudget) {
    if (scanned.containers > jsonBudget.left) throw tooMany();
    jsonBudget.left -= scanned.containers;
  }
  return value;
}

/** A JSON text attribute read as its value; structured values (arrays, kvlists) as they are. */
export function structured(v: AttrValue | unknown): unknown {
  if (typeof v !== "string") return v;
  const t = v.trimStart();
  if (!t.startsWith("[") && !t.startsWith("{")) return v;
  const parsed = parseAttributeJson(v);
  return parsed === undefined ? v : parsed;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : null);
const contentText = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : JSON.stringify(v));

/** Tool arguments: JSON text becomes its value (providers send a JSON string). */
export function toolArguments(v: unknown): unknown {
  if (typeof v !== "string") return v ?? null;
  const parsed = parseAttributeJson(v);
  return parsed === undefined ? v : parsed;
}

/** One part of the semantic conventions' parts format; null when it cannot be stored. */
function part(p: unknown): Part | null {
  if (typeof p === "string") return { type: "text", content: p };
  if (!isObj(p)) return null;
  switch (p.type) {
    case "text":
    case "reasoning": {
      const content = str(p.content) ?? str(p.text);
      return content === null ? null : { type: p.type, content };
    }
    case "tool_call": {
      // the id is optional in the conventions (Gemini has none): `withToolCallIds` gives one
      return { type: "tool_call", id: str(p.id) ?? "", name: str(p.name) ?? "", arguments: toolArguments(p.arguments) };
    }
    case "tool_call_response": {
      const id = str(p.id) ?? "";
      const out: Part = { type: "tool_call_response", id, response: p.response ?? p.result ?? null };
      if (!id && str(p.name)) (out as Part & { name?: string }).name = str(p.name)!; // to pair it (withToolCallIds)
      if (typeof p.is_error === "boolean") out.is_error = p.is_error;
      return out;
    }
    default:
      return null; // blob, file, uri and unknown kinds: nothing SightDesk judges
  }
}

/** OpenAI-style `content`: a string, or an array of {type: "text", text} blocks. */
function contentParts(content: unknown): Part[] {
  if (content == null || content === "") return [];
  if (typeof content === "string") return [{ type: "text", content }];
  if (Array.isArray(content)) {
    return content.flatMap((c): Part[] => {
      if (typeof c === "string") return [{ type: "text", content: c }];
      if (isObj(c) && (c.type === "text" || c.type === undefined) && str(c.text) !== null) return [{ type: "text", content: str(c.text)! }];
      const p = part(c);
      return p ? [p] : [];
    });
  }
  if (isObj(content)) return contentParts(content.parts ?? content.content ?? content.text);
  return [{ type: "text", content: contentText(content) }];
}

function openAiToolCalls(v: unknown): Part[] {
  const calls = structured(v);
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((c): Part[] => {
    if (!isObj(c)) return [];
    const fn = isObj(c.function) ? c.function : c;
    const id = str(c.id) ?? "";
    const name = str(fn.name) ?? "";
    // an id-less call is kept, as in the parts format: `withToolCallIds` gives it one
    return id || name ? [{ type: "tool_call", id, name, arguments: toolArguments(fn.arguments) }] : [];
  });
}

/** One message in either form: `{role, parts}` (semantic conventions) or `{role, content, tool_calls}`. */
export function message(m: unknown, fallbackRole = "user"): ChatMessage | null {
  if (!isObj(m)) return null;
  const role = str(m.role) || fallbackRole;
  let parts: Part[];
  if (Array.isArray(m.parts)) parts = m.parts.map(part).filter((p): p is Part => p !== null);
  else if (role === "tool" && (str(m.tool_call_id) || str(m.id))) {
    parts = [{ type: "tool_call_response", id: (str(m.tool_call_id) || str(m.id))!, response: m.content ?? null }];
  } else parts = [...contentParts(m.content), ...openAiToolCalls(m.tool_calls)];
  const out: ChatMessage = { role, parts };
  const finish = str(m.finish_reason);
  if (finish) out.finish_reason = finish;
  return out;
}

/** A messages attribute (JSON text or structured): the messages it holds. */
export function messages(v: AttrValue | unknown, fallbackRole = "user"): ChatMessage[] {
  const value = structured(v);
  const items = Array.isArray(value) ? value : isObj(value) ? [value] : [];
  return items.map((m) => message(m, fallbackRole)).filter((m): m is ChatMessage => m !== null);
}

/** gen_ai.system_instructions: a parts array (JSON) or plain text. */
export function systemInstructions(v: AttrValue | unknown): Part[] | null {
  if (v == null) return null;
  const value = structured(v);
  if (typeof value === "string") return [{ type: "text", content: value }];
  const usable = (p: Part | null): p is Part => p !== null && !idlessToolPart(p);
  if (Array.isArray(value)) return value.map(part).filter(usable);
  return contentParts(value).filter(usable);
}

// ── OpenInference ─────────────────────────────────────────────────────────────────────────

const FLAT = /^llm\.(input|output)_messages\.(\d+)\.message\.(.+)$/;

function setPath(target: Obj, path: string[], value: unknown): void {
  let at = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    if (key === "__proto__" || key === "constructor" || key === "prototype") return;
    const next = at[key];
    at = isObj(next) ? next : (at[key] = {});
  }
  const last = path[path.length - 1];
  if (last !== "__proto__") at[last] = value;
}

function flatMessage(fields: Obj, fallbackRole: string): ChatMessage {
  const role = str(fields.role) || fallbackRole;
  const parts: Part[] = [];
  if (fields.content != null) parts.push(...contentParts(fields.content));
  if (isObj(fields.contents)) {
    for (const key of Object.keys(fields.contents).sort((a, b) => Number(a) - Number(b))) {
      const c = (fields.contents as Obj)[key];
      const mc = isObj(c) && isObj(c.message_content) ? c.message_content : null;
      if (mc && (mc.type === "text" || mc.type === undefined) && str(mc.text) !== null) parts.push({ type: "text", content: str(mc.text)! });
    }
  }
  if (isObj(fields.tool_calls)) {
    for (const key of Object.keys(fields.tool_calls).sort((a, b) => Number(a) - Number(b))) {
      const c = (fields.tool_calls as Obj)[key];
      const tc = isObj(c) && isObj(c.tool_call) ? c.tool_call : null;
      const fn = tc && isObj(tc.function) ? tc.function : null;
      const id = (tc && str(tc.id)) ?? "";
      const name = (fn && str(fn.name)) ?? "";
      if (id || name) parts.push({ type: "tool_call", id, name, arguments: toolArguments(fn?.arguments) }); // id-less: given one, as above
    }
  }
  const toolCallId = str(fields.tool_call_id);
  if (role === "tool" && toolCallId) {
    const response = parts.map((p) => (p.type === "text" ? p.content : "")).join("");
    return { role, parts: [{ type: "tool_call_response", id: toolCallId, response }] };
  }
  return { role, parts };
}

/** OpenInference's llm.input_messages / llm.output_messages, from the flattened attributes. */
export function openInferenceMessages(attributes: Attributes): { input: ChatMessage[]; output: ChatMessage[] } {
  const grouped = { input: new Map<number, Obj>(), output: new Map<number, Obj>() };
  for (const [key, value] of Object.entries(attributes)) {
    const m = FLAT.exec(key);
    if (!m) continue;
    const side = grouped[m[1] as "input" | "output"];
    const index = Number(m[2]);
    if (!side.has(index)) side.set(index, {});
    setPath(side.get(index)!, m[3].split("."), value);
  }
  const read = (side: Map<number, Obj>, role: string) => [...side.entries()].sort((a, b) => a[0] - b[0]).map(([, fields]) => flatMessage(fields, role));
  return { input: read(grouped.input, "user"), output: read(grouped.output, "assistant") };
}
