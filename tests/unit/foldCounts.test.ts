// conversation-counts' order does not depend on the order the database grouped rows in
// (PostgreSQL's hash aggregation returns them in any order; SQLite's in key order).
import { describe, expect, it } from "vitest";
import { emptySeverityCounts } from "@/lib/domain/interruptions";
import { foldCounts } from "@/lib/db/queries/interruptions";

const row = (key: string | null, type: string, severity: string, n: number) => ({ conversationId: key, type, severity, n });
const fold = (rows: ReturnType<typeof row>[]) =>
  foldCounts(rows, (r) => (r.conversationId as string | null) ?? null, (conversation_id) => ({ conversation_id, total: 0, by_severity: emptySeverityCounts(), types: [] as { interruption_type: string; severity: string; count: number }[] }));

describe("foldCounts", () => {
  it("orders most first, ties by key, and each key's types by type then severity, whatever order the rows came in", () => {
    const rows = [row("c-b", "rate_limit", "medium", 1), row("c-b", "auth_error", "high", 1), row(null, "agent_crash", "critical", 2), row("c-a", "rate_limit", "medium", 1), row("c-a", "auth_error", "high", 1)];
    for (const order of [rows, [...rows].reverse()]) {
      const folded = fold(order);
      // before: ties in the order the rows came in, and types too
      expect(folded.map((g) => g.conversation_id)).toEqual(["__unassigned__", "c-a", "c-b"]); // "_" sorts before "c"
      expect(folded.map((g) => g.types.map((t) => t.interruption_type))).toEqual([["agent_crash"], ["auth_error", "rate_limit"], ["auth_error", "rate_limit"]]);
    }
  });
});
