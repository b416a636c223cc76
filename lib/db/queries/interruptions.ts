// Reading interruptions: lists with keyset pagination, and the unresolved counts of SPEC §5.1.
import type { InterruptionFilter, Status } from "../../api/contracts/params";
import { ApiError } from "../../api/errors";
import { SEVERITIES } from "../../detect/types";
import type { DbTx } from "../client";
import type { Interruption, Prisma } from "../generated/client";

export const UNASSIGNED = "__unassigned__";
const UNRESOLVED: Status[] = ["open", "acknowledged"];

export function interruptionWhere(f: InterruptionFilter): Prisma.InterruptionWhereInput {
  const where: Prisma.InterruptionWhereInput = { occurredAtNs: { gte: f.startNs, lte: f.endNs } };
  if (f.agentNames?.length) where.agentName = { in: f.agentNames };
  if (f.types?.length) where.type = { in: f.types };
  if (f.severities?.length) where.severity = { in: f.severities };
  if (f.statuses) where.status = { in: f.statuses };
  if (f.sessionId) where.sessionId = f.sessionId;
  if (f.conversationId) where.conversationId = f.conversationId;
  if (f.q) {
    where.OR = [
      { id: f.q },
      { callId: f.q },
      { traceId: f.q },
      { type: { contains: f.q } },
      { agentName: { contains: f.q } },
      { detail: { contains: f.q } },
    ];
  }
  return where;
}

/** Unresolved only (count routes), whatever status filter was asked for. */
function unresolvedWhere(f: InterruptionFilter): Prisma.InterruptionWhereInput {
  const statuses = (f.statuses ?? UNRESOLVED).filter((s) => UNRESOLVED.includes(s));
  return interruptionWhere({ ...f, statuses });
}

// Cursors are opaque to clients: "<occurred_at_ns>.<id>" in base64url.
export function encodeCursor(i: Pick<Interruption, "occurredAtNs" | "id">): string {
  return Buffer.from(`${i.occurredAtNs}.${i.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { ns: bigint; id: string } {
  const [ns, id] = Buffer.from(cursor, "base64url").toString("utf8").split(".");
  if (!/^\d{1,20}$/.test(ns ?? "") || !id) throw new ApiError(400, "cursor: not a cursor this server issued");
  return { ns: BigInt(ns), id };
}

/** Newest first; `cursor` continues after the last row of the previous page. */
export async function listInterruptions(db: DbTx, f: InterruptionFilter, limit: number, cursor?: string): Promise<Interruption[]> {
  const where = interruptionWhere(f);
  if (cursor) {
    const c = decodeCursor(cursor);
    where.AND = [{ OR: [{ occurredAtNs: { lt: c.ns } }, { occurredAtNs: c.ns, id: { lt: c.id } }] }];
  }
  return db.interruption.findMany({ where, orderBy: [{ occurredAtNs: "desc" }, { id: "desc" }], take: limit });
}

/** Oldest first: a session's or conversation's interruptions (all of them, any time). */
export function interruptionsOf(db: DbTx, key: { sessionId: string } | { conversationId: string }, limit = 5000) {
  return db.interruption.findMany({ where: key, orderBy: [{ occurredAtNs: "asc" }, { id: "asc" }], take: limit });
}

export const getInterruption = (db: DbTx, id: string) => db.interruption.findUnique({ where: { id } });

export type SeverityCounts = Record<(typeof SEVERITIES)[number], number>;
const emptyCounts = (): SeverityCounts => ({ critical: 0, high: 0, medium: 0, low: 0 });

export async function countUnresolved(db: DbTx, f: InterruptionFilter) {
  const groups = await db.interruption.groupBy({ by: ["severity"], where: unresolvedWhere(f), _count: { _all: true } });
  const by_severity = emptyCounts();
  let total = 0;
  for (const g of groups) {
    if (g.severity in by_severity) by_severity[g.severity as keyof SeverityCounts] += g._count._all;
    total += g._count._all;
  }
  return { total, by_severity };
}

export async function statsUnresolved(db: DbTx, f: InterruptionFilter) {
  const groups = await db.interruption.groupBy({ by: ["type", "severity"], where: unresolvedWhere(f), _count: { _all: true } });
  return groups
    .map((g) => ({ interruption_type: g.type, severity: g.severity, count: g._count._all }))
    .sort((a, b) => b.count - a.count || a.interruption_type.localeCompare(b.interruption_type));
}

type TypeCount = { interruption_type: string; severity: string; count: number };
type GroupCounts = { total: number; by_severity: SeverityCounts; types: TypeCount[] };

function addTo(group: GroupCounts, type: string, severity: string, count: number): void {
  group.total += count;
  if (severity in group.by_severity) group.by_severity[severity as keyof SeverityCounts] += count;
  group.types.push({ interruption_type: type, severity, count });
}

const byTotal = (a: { total: number }, b: { total: number }) => b.total - a.total;

export async function sessionCounts(db: DbTx, f: InterruptionFilter) {
  const groups = await db.interruption.groupBy({
    by: ["sessionId", "type", "severity"],
    where: unresolvedWhere(f),
    _count: { _all: true },
  });
  const sessions = new Map<string, GroupCounts & { session_id: string }>();
  for (const g of groups) {
    const key = g.sessionId ?? UNASSIGNED;
    let s = sessions.get(key);
    if (!s) sessions.set(key, (s = { session_id: key, total: 0, by_severity: emptyCounts(), types: [] }));
    addTo(s, g.type, g.severity, g._count._all);
  }
  return [...sessions.values()].sort(byTotal);
}

export async function conversationCounts(db: DbTx, f: InterruptionFilter) {
  const groups = await db.interruption.groupBy({
    by: ["conversationId", "sessionId", "type", "severity"],
    where: unresolvedWhere(f),
    _count: { _all: true },
  });
  const conversations = new Map<string, GroupCounts & { conversation_id: string; session_id: string | null }>();
  for (const g of groups) {
    const key = g.conversationId ?? UNASSIGNED;
    let c = conversations.get(key);
    if (!c) {
      const session = g.conversationId ? g.sessionId : null;
      conversations.set(key, (c = { conversation_id: key, session_id: session, total: 0, by_severity: emptyCounts(), types: [] }));
    }
    addTo(c, g.type, g.severity, g._count._all);
  }
  return [...conversations.values()].sort(byTotal);
}

/** Ids of every interruption matching a filter (for bulk actions on "all N matching"). */
export async function matchingIds(db: DbTx, f: InterruptionFilter): Promise<string[]> {
  const rows = await db.interruption.findMany({ where: interruptionWhere(f), select: { id: true }, orderBy: { occurredAtNs: "desc" } });
  return rows.map((r) => r.id);
}
