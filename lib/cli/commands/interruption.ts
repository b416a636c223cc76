// `sightdesk interruption count|stats|list|get|session|conversation|resolve|acknowledge`.
import { SEVERITIES, severityRank } from "../../domain/interruptions";
import { NS_PER_MS, nowNs as toNs } from "../../domain/time";
import type { Query } from "../client";
import { type Context, pathId } from "../context";
import { fields, localTime, plural, prettyJson, safeJson, safeLine, safeText, shorten, table } from "../format";
import { line } from "../io";
import { type InterruptionRecord, isObj, nsText, toCount, toRecord, toRecords, toStats } from "../replies";

export type FilterOptions = { last: number; type?: string[]; severity?: string[]; agent?: string[]; json?: boolean };
export type ListOptions = FilterOptions & {
  unresolved?: boolean;
  resolved?: boolean;
  limit?: number;
  session?: string;
  conversation?: string;
};
export type JsonOption = { json?: boolean };
export type NoteOptions = JsonOption & { note?: string };

export const DEFAULT_LIMIT = 200;
/** The server's largest page; --limit beyond it follows the `Link: rel="next"` cursor. */
export const PAGE_MAX = 5000;


const hoursText = (hours: number) => `${hours} h`;

function filterQuery(ctx: Context, opts: FilterOptions): Query {
  const nowNs = toNs(ctx.now());
  const startNs = nowNs - BigInt(Math.round(opts.last * 3_600_000)) * NS_PER_MS;
  return {
    start_ns: (startNs < 0n ? 0n : startNs).toString(),
    interruption_type: opts.type?.join(","),
    severity: opts.severity?.join(","),
    agent_name: opts.agent?.join(","),
  };
}

function listQuery(ctx: Context, opts: ListOptions): Query {
  return {
    ...filterQuery(ctx, opts),
    resolved: opts.unresolved ? "false" : opts.resolved ? "true" : undefined,
    session_id: opts.session,
    conversation_id: opts.conversation,
  };
}

/** "matching severity=high, unresolved" (empty without filters). */
function describeFilter(opts: ListOptions): string {
  const parts: string[] = [];
  if (opts.type) parts.push(`type=${opts.type.join(",")}`);
  if (opts.severity) parts.push(`severity=${opts.severity.join(",")}`);
  if (opts.agent) parts.push(`agent=${opts.agent.join(",")}`);
  if (opts.session) parts.push(`session=${opts.session}`);
  if (opts.conversation) parts.push(`conversation=${opts.conversation}`);
  if (opts.unresolved) parts.push("unresolved");
  if (opts.resolved) parts.push("resolved");
  return parts.length ? ` matching ${safeLine(parts.join(", "))}` : "";
}

function printJson(ctx: Context, text: string): void {
  line(ctx.io.out, safeJson(text.trim()));
}

/** One row per interruption: the columns of AgentSight's `interruption list`. */
export function recordsTable(records: InterruptionRecord[]): string {
  return table(
    [{ header: "TIME" }, { header: "SEVERITY" }, { header: "TYPE" }, { header: "AGENT" }, { header: "SESSION" }, { header: "ID" }, { header: "STATUS" }],
    records.map((r) => [
      localTime(r.occurred_at_ns),
      r.severity,
      r.interruption_type,
      shorten(safeLine(r.agent_name ?? "-"), 24),
      shorten(safeLine(r.session_id ?? "-"), 12),
      r.interruption_id,
      r.status,
    ]),
  );
}

/** The `cursor` of a `Link: <…?cursor=…>; rel="next"` header (only the cursor is reused). */
function nextCursor(link: string | null): string | null {
  const match = link ? /<([^>]*)>\s*;\s*rel="?next"?/i.exec(link) : null;
  if (!match) return null;
  try {
    return new URL(match[1], "http://link.invalid").searchParams.get("cursor");
  } catch {
    return null;
  }
}

/** Joins the JSON arrays of several pages into one array, without re-encoding any value. */
function joinArrays(texts: string[]): string {
  const inner = texts.map((t) => t.trim().slice(1, -1).trim()).filter(Boolean);
  return `[${inner.join(",")}]`;
}

export async function list(ctx: Context, opts: ListOptions): Promise<void> {
  const client = ctx.client();
  const limit = opts.limit ?? DEFAULT_LIMIT;
  const base = listQuery(ctx, opts);
  const records: InterruptionRecord[] = [];
  const texts: string[] = [];
  let cursor: string | undefined;
  let more = false;
  for (;;) {
    const pageLimit = Math.min(limit - records.length, PAGE_MAX);
    const res = await client.get("/api/interruptions", { query: { ...base, limit: String(pageLimit), cursor } });
    const page = toRecords(res.value);
    records.push(...page);
    texts.push(res.text);
    const next = page.length === pageLimit ? nextCursor(res.headers.get("link")) : null;
    if (!next) break;
    if (records.length >= limit) {
      more = true;
      break;
    }
    cursor = next;
  }
  if (opts.json) return printJson(ctx, texts.length === 1 ? texts[0] : joinArrays(texts));
  if (!records.length) {
    line(ctx.io.out, `No interruptions in the last ${hoursText(opts.last)}${describeFilter(opts)}.`);
    return;
  }
  ctx.io.out(recordsTable(records));
  line(
    ctx.io.out,
    more
      ? `\nShowing the newest ${plural(records.length, "interruption")}; more may match (raise --limit or narrow the filters).`
      : `\n${plural(records.length, "interruption")}, newest first.`,
  );
}

export async function count(ctx: Context, opts: FilterOptions): Promise<void> {
  const res = await ctx.client().get("/api/interruptions/count", { query: filterQuery(ctx, opts) });
  const counts = toCount(res.value);
  if (opts.json) return printJson(ctx, res.text);
  ctx.io.out(`Unresolved interruptions in the last ${hoursText(opts.last)}${describeFilter(opts)}:\n\n`);
  ctx.io.out(
    table(
      [{ header: "SEVERITY" }, { header: "COUNT", align: "right" }],
      [
        ...SEVERITIES.map((s) => [s, String(counts.by_severity[s])]),
        ["TOTAL", String(counts.total)],
      ],
    ),
  );
}

export async function stats(ctx: Context, opts: FilterOptions): Promise<void> {
  const res = await ctx.client().get("/api/interruptions/stats", { query: filterQuery(ctx, opts) });
  const rows = toStats(res.value);
  if (opts.json) return printJson(ctx, res.text);
  if (!rows.length) {
    line(ctx.io.out, `No unresolved interruptions in the last ${hoursText(opts.last)}${describeFilter(opts)}.`);
    return;
  }
  const sorted = [...rows].sort((a, b) => b.count - a.count || severityRank(a.severity) - severityRank(b.severity) || a.interruption_type.localeCompare(b.interruption_type));
  ctx.io.out(`Unresolved interruptions in the last ${hoursText(opts.last)}${describeFilter(opts)}, by type:\n\n`);
  ctx.io.out(
    table(
      [{ header: "TYPE" }, { header: "SEVERITY" }, { header: "COUNT", align: "right" }],
      [...sorted.map((r) => [r.interruption_type, r.severity, String(r.count)]), ["TOTAL", "", String(rows.reduce((n, r) => n + r.count, 0))]],
    ),
  );
}

function fieldValue(key: string, value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (key.endsWith("_ns")) {
    const ns = nsText(value);
    if (ns !== null) return `${ns} (${localTime(ns)})`;
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

export async function get(ctx: Context, id: string, opts: JsonOption): Promise<void> {
  const res = await ctx.client().get(`/api/interruptions/${pathId(id, "interruption")}`, { notFound: `Interruption not found: ${safeLine(id)}` });
  const record = toRecord(res.value);
  if (opts.json) return printJson(ctx, res.text);
  const raw = isObj(res.value) ? res.value : {};
  const pairs = Object.entries(raw)
    .filter(([k]) => k !== "detail")
    .map(([k, v]): [string, string] => [k, fieldValue(k, v)]);
  ctx.io.out(fields(pairs));
  const detail = prettyJson(record.detail) ?? record.detail;
  line(ctx.io.out, `detail:\n${safeText(detail).replace(/^/gm, "  ")}`);
}

/** All of a session's or conversation's interruptions: page after page, while the server's Link header goes on. */
async function recordsOf(ctx: Context, what: "session" | "conversation", id: string, opts: JsonOption): Promise<void> {
  const route = what === "session" ? "sessions" : "conversations";
  const client = ctx.client();
  const records: InterruptionRecord[] = [];
  const texts: string[] = [];
  for (let cursor: string | null | undefined; cursor !== null; ) {
    const res = await client.get(`/api/${route}/${pathId(id, what)}/interruptions`, { query: { cursor } });
    records.push(...toRecords(res.value));
    texts.push(res.text);
    cursor = nextCursor(res.headers.get("link"));
  }
  if (opts.json) return printJson(ctx, texts.length === 1 ? texts[0] : joinArrays(texts));
  if (!records.length) {
    line(ctx.io.out, `No interruptions in ${what} ${safeLine(id)}.`);
    return;
  }
  ctx.io.out(`Interruptions in ${what} ${safeLine(id)}, oldest first:\n\n`);
  ctx.io.out(recordsTable(records));
  line(ctx.io.out, `\n${plural(records.length, "interruption")}.`);
}

export const session = (ctx: Context, id: string, opts: JsonOption) => recordsOf(ctx, "session", id, opts);
export const conversation = (ctx: Context, id: string, opts: JsonOption) => recordsOf(ctx, "conversation", id, opts);

const noteBody = (opts: NoteOptions) => (opts.note === undefined ? {} : { note: opts.note });

export async function resolve(ctx: Context, id: string, opts: NoteOptions): Promise<void> {
  const res = await ctx.client().post(`/api/interruptions/${pathId(id, "interruption")}/resolve`, {
    body: noteBody(opts),
    notFound: `Interruption not found: ${safeLine(id)}`,
  });
  if (opts.json) return printJson(ctx, res.text);
  line(ctx.io.out, `Resolved ${safeLine(id)}.`);
}

export async function acknowledge(ctx: Context, id: string, opts: NoteOptions): Promise<void> {
  const res = await ctx.client().post(`/api/interruptions/${pathId(id, "interruption")}/acknowledge`, {
    body: noteBody(opts),
    notFound: `Interruption not found: ${safeLine(id)}`,
  });
  const record = toRecord(res.value);
  if (opts.json) return printJson(ctx, res.text);
  const agent = record.agent_name === null ? "" : `, agent ${safeLine(record.agent_name)}`;
  line(ctx.io.out, `Acknowledged ${record.interruption_id} (${record.severity} ${record.interruption_type}${agent}); status: ${record.status}.`);
}
