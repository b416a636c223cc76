// Importing a larger AgentSight interruption store page by page (one transaction per page):
// every row arrives once with its id, severity and resolved flag, resolved ones with their
// activity; progress counts up to the rows there are; a re-run, with or without the
// high-water marks, changes nothing. Nothing here depends on how fast it runs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { foldOpenCounts } from "@/lib/db/openCounts";
import { readSql } from "@/lib/db/sql";
import { AgentSightImporter, follow, IMPORT_ACTOR, type ImportProgress } from "@/lib/import/agentsight";
import { AgentSightSource } from "@/lib/import/agentsightSource";
import { createAgentSightFiles } from "../fixtures/agentsight";
import { expectOpenCountsExact } from "../support/openCounts";
import { useTestDb } from "../support/testDb";

const db = useTestDb("importpages");
const ROWS = 12_345;
const PAGE = 2_000;
const T0 = 1_796_100_000_123_456_789n;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-import-pages-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Expected = { id: string; resolved: boolean; severity: string; session: string | null };

/** AgentSight's store with ROWS interruptions (every 7th resolved, every 50th without a session) and one it cannot import. */
function writeStore(): Expected[] {
  const { genai, events } = createAgentSightFiles(dir);
  genai.close();
  const insert = events.prepare(
    `INSERT INTO interruption_events (interruption_id, session_id, conversation_id, call_id, pid, agent_name, interruption_type, severity, occurred_at_ns, detail, resolved)
     VALUES (?, ?, ?, ?, 31337, 'CoderAgent', ?, ?, ?, ?, ?)`,
  );
  const expected: Expected[] = [];
  events.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const id = (i * 2_654_435_761 % 4_294_967_296).toString(16).padStart(8, "0") + String(i).padStart(24, "0");
      const session = i % 50 === 0 ? null : `as-session-${i % 997}`;
      const severity = ["critical", "high", "medium", "low", "High"][i % 5];
      const resolved = i % 7 === 0;
      insert.run(id, session, session && `conv-${i % 3}`, `call-${i}`, i % 2 ? "rate_limit" : "llm_error", severity, T0 + BigInt(i), JSON.stringify({ n: i }), resolved ? 1 : 0);
      expected.push({ id, resolved, severity: severity.toLowerCase(), session });
    }
    insert.run("not an id!", null, null, null, "llm_error", "high", T0, "{}", 0);
  })();
  events.close();
  return expected;
}

const expected = writeStore();
const resolved = expected.filter((e) => e.resolved).length;

describe("import agentsight: a store larger than a page", () => {
  it("imports every row once, in pages, reporting progress up to the rows there are", async () => {
    const source = AgentSightSource.open(dir);
    const progress: ImportProgress[] = [];
    const stats = await new AgentSightImporter(source, { kind: "local", db: db() }, { interruptionPageSize: PAGE, onProgress: (p) => progress.push(p) }).pass();
    source.close();
    expect(stats.interruptions).toEqual({ imported: ROWS, present: 0, skipped: 1, resolved });
    expect(stats.problems).toEqual(["interruption row 12346: invalid interruption_id"]);

    expect(progress[0]).toEqual({ table: "interruption_events", done: 0, total: ROWS + 1 });
    expect(progress.at(-1)).toEqual({ table: "interruption_events", done: ROWS + 1, total: ROWS + 1 });
    expect(progress.map((p) => p.done)).toEqual([0, ...Array.from({ length: Math.ceil((ROWS + 1) / PAGE) }, (_, i) => Math.min(ROWS + 1, (i + 1) * PAGE))]);
  });

  it("keeps each row's id, severity, session and resolved flag; resolved ones have their activity", async () => {
    const rows = await readSql(db()).all(`SELECT "id", "severity", "sessionId", "status", "resolvedBy" FROM "Interruption"`);
    expect(rows).toHaveLength(ROWS);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    for (const e of expected) {
      const r = byId.get(e.id)!;
      expect([r.severity, r.sessionId, r.status, r.resolvedBy]).toEqual([e.severity, e.session, e.resolved ? "resolved" : "open", e.resolved ? IMPORT_ACTOR : null]);
    }
    const activity = await readSql(db()).all(`SELECT "interruptionId", "action", "actor" FROM "InterruptionActivity"`);
    expect(activity).toHaveLength(resolved);
    expect(new Set(activity.map((a) => String(a.interruptionId)))).toEqual(new Set(expected.filter((e) => e.resolved).map((e) => e.id)));
    expect(activity.every((a) => a.action === "resolve" && a.actor === IMPORT_ACTOR)).toBe(true);
    // the per-session counts of unresolved interruptions came along, as a recount gives them
    const counts = await expectOpenCountsExact(db());
    expect(Object.values(counts).reduce((n, c) => n + c[0], 0)).toBe(ROWS - resolved);
    expect(Object.keys(counts)).toHaveLength(998); // 997 sessions and the rows without one
  });

  it("is a no-op when run again, with the high-water mark and without it", async () => {
    const again = AgentSightSource.open(dir);
    const marked = await new AgentSightImporter(again, { kind: "local", db: db() }, { interruptionPageSize: PAGE }).pass();
    expect(marked.interruptions).toEqual({ imported: 0, present: 0, skipped: 0, resolved: 0 });
    const unmarked = await new AgentSightImporter(again, { kind: "local", db: db() }, { interruptionPageSize: 3_000, marks: false }).pass();
    again.close();
    expect(unmarked.interruptions).toEqual({ imported: 0, present: ROWS, skipped: 1, resolved: 0 });
    const counts = await readSql(db()).all(`SELECT (SELECT COUNT(*) FROM "Interruption") AS "i", (SELECT COUNT(*) FROM "InterruptionActivity") AS "a"`);
    expect([Number(counts[0].i), Number(counts[0].a)]).toEqual([ROWS, resolved]);
  });
});

const stopDb = useTestDb("importstop");

describe("import agentsight --follow, stopped (Ctrl+C) during a long first pass", () => {
  it("stops at the end of the page under way, its work kept, and goes on from there next time", async () => {
    const source = AgentSightSource.open(dir);
    const stop = new AbortController();
    const importer = new AgentSightImporter(source, { kind: "local", db: stopDb() }, { interruptionPageSize: PAGE, onProgress: (p) => p.done >= PAGE && stop.abort() });
    const total = await follow(importer, { intervalMs: 60_000, signal: stop.signal });
    // before: the whole pass ran first (a store of millions: minutes after Ctrl+C)
    expect(total.interruptions.imported).toBe(PAGE);
    const rest = await new AgentSightImporter(source, { kind: "local", db: stopDb() }, { interruptionPageSize: PAGE }).pass();
    source.close();
    expect(rest.interruptions).toMatchObject({ imported: ROWS - PAGE, present: 0 });
  });
});
