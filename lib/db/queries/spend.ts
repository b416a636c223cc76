// What calls cost, read from their stored token counts: tokens are summed in SQL per (agent,
// model, provider) — a few rows however many calls — and priced in JS (lib/domain/pricing.ts),
// so a changed price table reprices history and no cost is stored.
//
// "Wasted" spend is the cost of calls that ended in an interruption (WASTED_CALL_TYPES: the
// call failed or was cut off) plus the calls of dead loops. Retry storms are made of failed
// calls, already counted. Every figure counts calls that *started* in the range.
import { notFound } from "../../domain/errors";
import { CALL_COST_TYPES, priceUsage, WASTED_CALL_TYPES, type CostSummary, type PriceTable, type UsageRow } from "../../domain/pricing";
import type { Db } from "../client";
import { asBigInt, asNumber, asText, marks, readSql, type Row, type Sql } from "../sql";
import { groupBy } from "../../groupBy";

/** The loop rules' thresholds (config `detection.loop.*`): how many calls first showed a loop. */
export type LoopThresholds = { toolRepeat: number; similarityCount: number; tokenBurnCalls: number; busyWaitCalls: number };

const NS_PER_HOUR = 3_600_000_000_000n;
/**
 * A failed call's interruption is dated at the call's end: interruptions up to this long after
 * the range still belong to calls that started in it.
 */
const CALL_END_SLACK_NS = NS_PER_HOUR;
/** Loops whose first call is looked up at once (separate connections on PostgreSQL). */
const LOOP_LOOKUPS = 8;
/** Loop ranges per aggregate statement (3 bound values each). */
const LOOP_CHUNK = 200;
/** Calls listed one by one in an interruption's cost (the totals count every call). */
const LISTED_CALLS = 200;

/** The call count and token sums of a group of calls (`table`: a qualifier such as `c.`). */
const sums = (table = "") =>
  `COUNT(*) AS "calls", SUM(COALESCE(${table}"inputTokens", 0)) AS "input", SUM(COALESCE(${table}"outputTokens", 0)) AS "output", ` +
  `SUM(COALESCE(${table}"cacheReadTokens", 0)) AS "cacheRead", SUM(COALESCE(${table}"cacheCreationTokens", 0)) AS "cacheWrite"`;
const SUMS = sums();
const TOKEN_COLUMNS = `"id", "agentName", "model", "provider", "inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens"`;

const usageRow = (r: Row): UsageRow & { agent: string | null } => ({
  agent: asText(r.agentName),
  model: asText(r.model),
  provider: asText(r.provider),
  calls: Number(r.calls),
  input: Number(r.input ?? 0),
  output: Number(r.output ?? 0),
  cacheRead: Number(r.cacheRead ?? 0),
  cacheWrite: Number(r.cacheWrite ?? 0),
});

export type SpendQuery = { startNs: bigint; endNs: bigint; agentNames?: string[] };

const agentFilter = (column: string, names?: string[]) => (names?.length ? { sql: ` AND ${column} IN (${marks(names.length)})`, params: names } : { sql: "", params: [] });

/**
 * Every call that started in the range, summed per (agent, model, provider). Read through the
 * sessions seen in the range and each one's (sessionId, startNs) index, so a short range on a
 * large store reads only its own calls.
 */
async function allUsage(sql: Sql, q: SpendQuery) {
  const agents = agentFilter('c."agentName"', q.agentNames);
  const inRange = `c."startNs" >= ? AND c."startNs" <= ?${agents.sql}`;
  const rows = await sql.all(
    `SELECT "agentName", "model", "provider", SUM("calls") AS "calls", SUM("input") AS "input", SUM("output") AS "output", SUM("cacheRead") AS "cacheRead", SUM("cacheWrite") AS "cacheWrite" FROM (` +
      `SELECT c."agentName", c."model", c."provider", ${sums("c.")} FROM "Session" s JOIN "Call" c ON c."sessionId" = s."id" ` +
      `WHERE s."lastSeenNs" >= ? AND s."firstSeenNs" <= ? AND ${inRange} GROUP BY c."agentName", c."model", c."provider" ` +
      `UNION ALL SELECT c."agentName", c."model", c."provider", ${sums("c.")} FROM "Call" c WHERE c."sessionId" IS NULL AND ${inRange} GROUP BY c."agentName", c."model", c."provider"` +
      `) AS "u" GROUP BY "agentName", "model", "provider"`,
    [q.startNs, q.endNs, q.startNs, q.endNs, ...agents.params, q.startNs, q.endNs, ...agents.params],
  );
  return rows.map(usageRow);
}

/** The ids of calls that ended in a wasted-call interruption (a sub-select). */
function failedCallIds(q: SpendQuery): { sql: string; params: unknown[] } {
  const agents = agentFilter('"agentName"', q.agentNames);
  return {
    sql: `SELECT "callId" FROM "Interruption" WHERE "occurredAtNs" >= ? AND "occurredAtNs" <= ? AND "type" IN (${marks(WASTED_CALL_TYPES.length)}) AND "callId" IS NOT NULL${agents.sql}`,
    params: [q.startNs, q.endNs + CALL_END_SLACK_NS, ...WASTED_CALL_TYPES, ...agents.params],
  };
}

async function failedUsage(sql: Sql, q: SpendQuery) {
  const failed = failedCallIds(q);
  const rows = await sql.all(
    `SELECT "agentName", "model", "provider", ${SUMS} FROM "Call" WHERE "id" IN (${failed.sql}) AND "startNs" >= ? AND "startNs" <= ? GROUP BY "agentName", "model", "provider"`,
    [...failed.params, q.startNs, q.endNs],
  );
  return rows.map(usageRow);
}

type LoopRow = { conversationId: string; callId: string | null; occurredAtNs: bigint; lastSeenNs: bigint; occurrences: number; detail: string };

/** How many calls first showed the loop: the rule's threshold, or the run it reported when it fired once. */
function firstRunLength(loop: Pick<LoopRow, "occurrences" | "detail">, t: LoopThresholds): number {
  let detail: { rule?: unknown; repeat_count?: unknown } = {};
  try {
    detail = JSON.parse(loop.detail) as typeof detail;
  } catch {
    /* imported rows may carry anything */
  }
  const reported = typeof detail.repeat_count === "number" && detail.repeat_count >= 1 ? Math.floor(detail.repeat_count) : null;
  if (loop.occurrences <= 1 && reported !== null) return reported;
  const byRule: Record<string, number> = {
    tool_sequence_repetition: t.toolRepeat,
    output_similarity_loop: t.similarityCount,
    token_burn_no_progress: t.tokenBurnCalls,
    busy_wait: t.busyWaitCalls,
  };
  return Math.max(1, byRule[String(detail.rule)] ?? reported ?? 1);
}

/**
 * A dead loop's calls: the run that first showed it (ending with the call that crossed the
 * threshold) and every later call of the conversation until it was last seen.
 */
async function loopRange(sql: Sql, loop: LoopRow, t: LoopThresholds): Promise<{ conversationId: string; fromNs: bigint; toNs: bigint }> {
  const k = firstRunLength(loop, t);
  const rows = await sql.all(
    `SELECT "startNs" FROM "Call" WHERE "conversationId" = ? AND "startNs" <= COALESCE((SELECT "startNs" FROM "Call" WHERE "id" = ?), ?) ORDER BY "startNs" DESC LIMIT 1 OFFSET ?`,
    [loop.conversationId, loop.callId ?? "", loop.occurredAtNs, k - 1],
  );
  // fewer calls than the run: the conversation's first call starts it
  return { conversationId: loop.conversationId, fromNs: rows.length ? asBigInt(rows[0].startNs)! : 0n, toNs: loop.lastSeenNs };
}

const toLoop = (r: Row): LoopRow => ({
  conversationId: String(r.conversationId),
  callId: asText(r.callId),
  occurredAtNs: asBigInt(r.occurredAtNs)!,
  lastSeenNs: asBigInt(r.lastSeenNs)!,
  occurrences: asNumber(r.occurrences) ?? 1,
  detail: String(r.detail ?? "{}"),
});

/** Overlapping ranges of one conversation become one, so no call is counted twice. */
function mergeRanges(ranges: { conversationId: string; fromNs: bigint; toNs: bigint }[]) {
  const sorted = [...ranges].sort((a, b) => (a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : a.fromNs < b.fromNs ? -1 : a.fromNs > b.fromNs ? 1 : 0));
  const out: typeof ranges = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.conversationId === r.conversationId && r.fromNs <= last.toNs) {
      if (r.toNs > last.toNs) last.toNs = r.toNs;
    } else out.push({ ...r });
  }
  return out;
}

/** The calls of dead loops that overlap the range, less those already counted as failed calls. */
async function loopUsage(sql: Sql, q: SpendQuery, t: LoopThresholds) {
  const agents = agentFilter('"agentName"', q.agentNames);
  const loops = (
    await sql.all(
      `SELECT "conversationId", "callId", "occurredAtNs", "lastSeenNs", "occurrences", "detail" FROM "Interruption" WHERE "type" = 'dead_loop' AND "occurredAtNs" <= ? AND "lastSeenNs" >= ? AND "conversationId" IS NOT NULL${agents.sql}`,
      [q.endNs + CALL_END_SLACK_NS, q.startNs, ...agents.params],
    )
  ).map(toLoop);
  const ranges: { conversationId: string; fromNs: bigint; toNs: bigint }[] = [];
  for (let i = 0; i < loops.length; i += LOOP_LOOKUPS) {
    for (const r of await Promise.all(loops.slice(i, i + LOOP_LOOKUPS).map((loop) => loopRange(sql, loop, t)))) {
      const fromNs = r.fromNs > q.startNs ? r.fromNs : q.startNs;
      const toNs = r.toNs < q.endNs ? r.toNs : q.endNs;
      if (fromNs <= toNs) ranges.push({ ...r, fromNs, toNs });
    }
  }
  const merged = mergeRanges(ranges);
  const failed = failedCallIds(q);
  const out: ReturnType<typeof usageRow>[] = [];
  for (let i = 0; i < merged.length; i += LOOP_CHUNK) {
    const chunk = merged.slice(i, i + LOOP_CHUNK);
    const parts = chunk.map(() => `SELECT ${TOKEN_COLUMNS} FROM "Call" WHERE "conversationId" = ? AND "startNs" >= ? AND "startNs" <= ?`);
    const rows = await sql.all(
      `SELECT "agentName", "model", "provider", ${SUMS} FROM (${parts.join(" UNION ALL ")}) AS "l" WHERE "id" NOT IN (${failed.sql})${agents.sql} GROUP BY "agentName", "model", "provider"`,
      [...chunk.flatMap((r) => [r.conversationId, r.fromNs, r.toNs]), ...failed.params, ...agents.params],
    );
    out.push(...rows.map(usageRow));
  }
  return out;
}

type Usage = ReturnType<typeof usageRow>;

const byAgent = (rows: Usage[]) => groupBy(rows, (r) => r.agent);

export type AgentSpend = {
  agent_name: string | null;
  calls: number;
  priced_calls: number;
  unpriced_calls: number;
  unpriced_models: string[];
  cost_usd: number;
  /** failed calls plus dead-loop calls */
  wasted_calls: number;
  /** of the wasted calls whose price is known */
  wasted_usd: number;
  wasted_unpriced_calls: number;
  failed_calls: number;
  failed_usd: number;
  loop_calls: number;
  loop_usd: number;
  by_model: CostSummary["by_model"];
};

/** Spend and wasted spend per agent over a range, most expensive first. */
export async function spendByAgent(db: Db, q: SpendQuery, prices: PriceTable, loops: LoopThresholds) {
  const sql = readSql(db);
  // independent reads: on PostgreSQL they run on separate connections at once
  const [all, failed, looped] = await Promise.all([allUsage(sql, q), failedUsage(sql, q), loopUsage(sql, q, loops)]);
  const failedBy = byAgent(failed);
  const loopBy = byAgent(looped);
  const agents: AgentSpend[] = [];
  for (const [agent, rows] of byAgent(all)) {
    const spend = priceUsage(prices, rows);
    const f = priceUsage(prices, failedBy.get(agent) ?? []);
    const l = priceUsage(prices, loopBy.get(agent) ?? []);
    agents.push({
      agent_name: agent,
      calls: spend.calls,
      priced_calls: spend.priced_calls,
      unpriced_calls: spend.unpriced_calls,
      unpriced_models: spend.unpriced_models,
      cost_usd: spend.cost_usd,
      wasted_calls: f.calls + l.calls,
      wasted_usd: f.cost_usd + l.cost_usd,
      wasted_unpriced_calls: f.unpriced_calls + l.unpriced_calls,
      failed_calls: f.calls,
      failed_usd: f.cost_usd,
      loop_calls: l.calls,
      loop_usd: l.cost_usd,
      by_model: spend.by_model,
    });
  }
  agents.sort((a, b) => b.cost_usd - a.cost_usd || b.calls - a.calls || String(a.agent_name).localeCompare(String(b.agent_name)));
  const sum = (k: "calls" | "cost_usd" | "wasted_calls" | "wasted_usd" | "unpriced_calls" | "wasted_unpriced_calls") => agents.reduce((n, a) => n + a[k], 0);
  return {
    start_ns: q.startNs,
    end_ns: q.endNs,
    currency: "USD" as const,
    total: {
      calls: sum("calls"),
      cost_usd: sum("cost_usd"),
      unpriced_calls: sum("unpriced_calls"),
      wasted_calls: sum("wasted_calls"),
      wasted_usd: sum("wasted_usd"),
      wasted_unpriced_calls: sum("wasted_unpriced_calls"),
    },
    agents,
  };
}

/** The cost of a session: every call of it, by model. */
export async function sessionSpend(db: Db, sessionId: string, prices: PriceTable) {
  const sql = readSql(db);
  if (!(await sql.all(`SELECT 1 FROM "Session" WHERE "id" = ?`, [sessionId])).length) throw notFound("Session not found");
  const rows = await sql.all(`SELECT NULL AS "agentName", "model", "provider", ${SUMS} FROM "Call" WHERE "sessionId" = ? GROUP BY "model", "provider"`, [sessionId]);
  return { session_id: sessionId, currency: "USD" as const, ...priceUsage(prices, rows.map(usageRow)) };
}

type CallTokens = { call_id: string; model: string | null; provider: string | null; input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number; cost_usd: number | null; price_key: string | null };

function callTokens(r: Row, prices: PriceTable): CallTokens {
  const u: UsageRow = {
    model: asText(r.model),
    provider: asText(r.provider),
    calls: 1,
    input: asNumber(r.inputTokens) ?? 0,
    output: asNumber(r.outputTokens) ?? 0,
    cacheRead: asNumber(r.cacheReadTokens) ?? 0,
    cacheWrite: asNumber(r.cacheCreationTokens) ?? 0,
  };
  const priced = priceUsage(prices, [u]).by_model[0];
  return {
    call_id: String(r.id),
    model: u.model,
    provider: u.provider,
    input_tokens: u.input,
    output_tokens: u.output,
    cache_read_tokens: u.cacheRead,
    cache_write_tokens: u.cacheWrite,
    cost_usd: priced.cost_usd,
    price_key: priced.price_key,
  };
}

/** One call's cost. */
export async function callSpend(db: Db, callId: string, prices: PriceTable) {
  const rows = await readSql(db).all(`SELECT ${TOKEN_COLUMNS} FROM "Call" WHERE "id" = ?`, [callId]);
  if (!rows.length) throw notFound("Call not found");
  return { currency: "USD" as const, ...callTokens(rows[0], prices) };
}

/**
 * What an interruption cost: its call; for a dead loop the calls of the loop; for a retry storm
 * the failed calls of the repeated type in its conversation. Interruptions without an LLM call
 * of their own (crashes, unsettled turns, tool results) cost nothing themselves.
 */
export async function interruptionSpend(db: Db, id: string, prices: PriceTable, loops: LoopThresholds) {
  const sql = readSql(db);
  const found = await sql.all(`SELECT "id", "type", "conversationId", "callId", "occurredAtNs", "lastSeenNs", "occurrences", "detail" FROM "Interruption" WHERE "id" = ?`, [id]);
  if (!found.length) throw notFound("Interruption not found");
  const i = found[0];
  const type = String(i.type);
  const conversationId = asText(i.conversationId);
  let basis: "call" | "dead_loop" | "retry_storm" | "none" = "none";
  let where: { sql: string; params: unknown[] } | null = null;
  if (type === "dead_loop" && conversationId) {
    const r = await loopRange(sql, toLoop(i), loops);
    basis = "dead_loop";
    where = { sql: `"conversationId" = ? AND "startNs" >= ? AND "startNs" <= ?`, params: [r.conversationId, r.fromNs, r.toNs] };
  } else if (type === "retry_storm" && conversationId) {
    let repeated = "";
    try {
      repeated = String((JSON.parse(String(i.detail)) as { repeated_type?: unknown }).repeated_type ?? "");
    } catch {
      /* no detail: nothing to find */
    }
    basis = "retry_storm";
    where = { sql: `"id" IN (SELECT "callId" FROM "Interruption" WHERE "conversationId" = ? AND "type" = ? AND "callId" IS NOT NULL)`, params: [conversationId, repeated] };
  } else if (i.callId && CALL_COST_TYPES.includes(type)) {
    basis = "call";
    where = { sql: `"id" = ?`, params: [String(i.callId)] };
  }
  if (!where) return { interruption_id: id, basis, currency: "USD" as const, ...priceUsage(prices, []), listed_calls: [] as CallTokens[] };
  const [sums, listed] = await Promise.all([
    sql.all(`SELECT NULL AS "agentName", "model", "provider", ${SUMS} FROM "Call" WHERE ${where.sql} GROUP BY "model", "provider"`, where.params),
    sql.all(`SELECT ${TOKEN_COLUMNS} FROM "Call" WHERE ${where.sql} ORDER BY "startNs" ASC LIMIT ${LISTED_CALLS}`, where.params),
  ]);
  return { interruption_id: id, basis, currency: "USD" as const, ...priceUsage(prices, sums.map(usageRow)), listed_calls: listed.map((r) => callTokens(r, prices)) };
}
