// Building interruption rows from findings: severity from configuration, a fingerprint for
// grouping (type + agent + model + normalized error code, SPEC §3.4).
import crypto from "node:crypto";
import type { DetectionConfig } from "../config/detection";
import type { InterruptionType } from "../domain/interruptions";
import { marks, type Sql } from "../db/sql";
import { nowNs } from "../domain/time";
import { redactValue } from "./redact";

export type InterruptionRow = {
  id: string;
  sessionId: string | null;
  conversationId: string | null;
  turnId: string | null;
  callId: string | null;
  traceId: string | null;
  pid: number | null;
  agentName: string | null;
  model: string | null;
  type: string;
  severity: string;
  occurredAtNs: bigint;
  lastSeenNs: bigint;
  occurrences: number;
  detail: string;
  fingerprint: string;
  createdAtNs: bigint;
};

export type InterruptionContext = Partial<
  Pick<InterruptionRow, "sessionId" | "conversationId" | "turnId" | "callId" | "traceId" | "pid" | "agentName" | "model">
>;

/** The part of a finding's evidence that names *which* failure it is, for grouping. */
function errorKey(detail: Record<string, unknown>): string {
  for (const key of ["error_code", "rule", "repeated_type", "reason", "signal"]) {
    const v = detail[key];
    if (typeof v === "string" && v) return v.toLowerCase();
  }
  const status = detail.status_code;
  return typeof status === "number" ? String(status) : "";
}

export function fingerprintOf(type: string, agentName: string | null, model: string | null, detail: Record<string, unknown>): string {
  const key = [type, agentName ?? "", model ?? "", errorKey(detail)].join("\u001f");
  return crypto.createHash("sha256").update(key).digest("hex").slice(0, 16);
}

export function buildInterruption(
  id: string,
  type: InterruptionType,
  detail: Record<string, unknown>,
  at: bigint,
  ctx: InterruptionContext,
  cfg: DetectionConfig,
): InterruptionRow {
  return {
    id,
    sessionId: ctx.sessionId ?? null,
    conversationId: ctx.conversationId ?? null,
    turnId: ctx.turnId ?? null,
    callId: ctx.callId ?? null,
    traceId: ctx.traceId ?? null,
    pid: ctx.pid ?? null,
    agentName: ctx.agentName ?? null,
    model: ctx.model ?? null,
    type,
    severity: cfg.severity[type],
    occurredAtNs: at,
    lastSeenNs: at,
    occurrences: 1,
    // evidence quotes tool output and error text: mask credentials in it too
    detail: JSON.stringify(redactValue(detail)),
    fingerprint: fingerprintOf(type, ctx.agentName ?? null, ctx.model ?? null, detail),
    createdAtNs: nowNs(),
  };
}

const RESTAMP_CHUNK = 500;
/** The database's clock now, in ns (PostgreSQL: the time when the statement runs). */
const DATABASE_NOW_NS = `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000000 AS BIGINT)`;

/**
 * The alert worker and the inbox's "N new" banner find new interruptions by createdAtNs (the
 * worker reading back 10 s behind the newest it has seen, lib/alerts/worker.ts; the banner not
 * at all): a row stamped when it was detected, in a transaction that committed later than that
 * (it ran long, or waited for row locks another process's transaction held), or stamped by a
 * process whose clock runs behind the others', could commit after a reader saw later stamps and
 * be passed over. As its last statement, a PostgreSQL transaction stamps the rows it created with
 * the database's clock — its commit, near enough, on one clock for every process. The clock is
 * read when the statement runs: statements are sent ahead of their results
 * (lib/db/postgresSql.ts), so a time read here could come before the waits. A SQLite transaction
 * holds the write lock from its start, and the stamps of its one process follow its commits.
 */
export async function stampAtCommit(sql: Sql, rows: readonly Pick<InterruptionRow, "id">[]): Promise<void> {
  if (!rows.length || sql.dialect !== "postgres") return;
  for (let i = 0; i < rows.length; i += RESTAMP_CHUNK) {
    const ids = rows.slice(i, i + RESTAMP_CHUNK).map((r) => r.id);
    await sql.run(`UPDATE "Interruption" SET "createdAtNs" = ${DATABASE_NOW_NS} WHERE "id" IN (${marks(ids.length)})`, ids);
  }
}
