// `sightdesk import agentsight <dir>` (SPEC §2.5): AgentSight's calls go through the normal
// ingest path (locally `ingestCalls`, remotely `POST /api/ingest/calls`), so sessions,
// conversations, turns, messages and SightDesk's own detection are exactly as for any sender.
// AgentSight's own interruptions are then inserted locally with their ids, types, severities,
// times, detail and resolved flag. Everything is idempotent: calls by call_id, interruptions by
// id, and local imports keep a high-water mark per file in the Setting table.
import fs from "node:fs";
import path from "node:path";
import { insertNew, insertRows, lastRowid, selectIn } from "../db/multiRow";
import { foldOpenCounts, insertCountedInBulk } from "../db/openCounts";
import type { Db } from "../db/client";
import { sqlTransaction, type Sql } from "../db/sql";
import { callKeys } from "../ingest/keys";
import { callSchema } from "../ingest/schema";
import { ingestCalls, type IngestResult } from "../ingest/storeCalls";
import type { NormalizedCall } from "../domain/calls";
import { nowNs as systemNowNs } from "../domain/time";
import { stampAtCommit } from "../ingest/interruptions";
import { IMPORT_ACTOR, mapCall, mapInterruption, type CallLink, type InterruptionMapping, type WireCall } from "./agentsightMap";
import type { AgentSightSource, SourceRow, TableName } from "./agentsightSource";

export { IMPORT_ACTOR } from "./agentsightMap";

/** Where the calls go: the local database, or a SightDesk server's ingest API. */
/** The largest call sent to a server: its default request limit (10 MiB, SIGHTDESK_MAX_BODY_BYTES: lib/api/body.ts), less the array around it. */
const MAX_REMOTE_CALL_BYTES = 10 * 1024 * 1024 - 2;

export type Sink = { kind: "local"; db: Db } | { kind: "remote"; postCalls: (calls: WireCall[]) => Promise<IngestResult> };

export type ImportStats = {
  calls: {
    /** newly stored (by this import or, remotely, by the server) */
    imported: number;
    /** present already (same call_id) */
    present: number;
    /** rows that could not be imported (see `problems`) */
    skipped: number;
    /** rows still `pending` in AgentSight, to be imported once settled */
    pending: number;
  };
  interruptions: { imported: number; present: number; skipped: number; resolved: number };
  /** sessions of the imported calls: new, or known before (counted for local imports only) */
  sessions: { imported: number; present: number };
  /** interruptions SightDesk's own detection created for the imported calls */
  detected: number;
  /** why rows were skipped (the first few) */
  problems: string[];
};

export function emptyStats(): ImportStats {
  return {
    calls: { imported: 0, present: 0, skipped: 0, pending: 0 },
    interruptions: { imported: 0, present: 0, skipped: 0, resolved: 0 },
    sessions: { imported: 0, present: 0 },
    detected: 0,
    problems: [],
  };
}

const MAX_PROBLEMS = 20;

export function addStats(into: ImportStats, more: ImportStats): void {
  for (const k of Object.keys(into.calls) as Array<keyof ImportStats["calls"]>) into.calls[k] += more.calls[k];
  for (const k of Object.keys(into.interruptions) as Array<keyof ImportStats["interruptions"]>) into.interruptions[k] += more.interruptions[k];
  into.sessions.imported += more.sessions.imported;
  into.sessions.present += more.sessions.present;
  into.detected += more.detected;
  for (const p of more.problems) if (into.problems.length < MAX_PROBLEMS) into.problems.push(p);
}

/** How far a pass has got through one AgentSight table (for a progress display). */
export type ImportProgress = {
  table: TableName;
  /** rows of this table read so far in this pass */
  done: number;
  /** rows of this table to read in this pass (estimated when the pass reached the table) */
  total: number;
};

/** A server sink's marks as kept in its mark file; `genai_events_at`: the call_id of the row at the calls' mark. */
type MarkFile = Partial<Record<TableName | "genai_events_at", string>>;

export type ImporterOptions = {
  /** genai_events rows read per query */
  pageSize?: number;
  /**
   * interruption_events rows read, and stored in one transaction, per page (default 100,000: a
   * transaction writes each index page it touched once, and a million AgentSight ids land on
   * random pages of the indexes: pages of 1,000 wrote 46 GB for a 1.2 GB database, 50,000 write
   * 7 GB, and 100,000 a fifth less than 50,000 for 400,000 rows). A server importing an upload
   * uses smaller pages: each one holds the writer's lock.
   */
  interruptionPageSize?: number;
  /** once when a pass reaches a table with rows to read, then after every page */
  onProgress?: (p: ImportProgress) => void;
  /** calls per ingest transaction / request */
  batchSize?: number;
  /** at most this many bytes of JSON per request to a server (the API's limit is 10 MiB) */
  maxRequestBytes?: number;
  /**
   * Keep a high-water mark per file in the Setting table, so a later import of the same
   * directory starts where this one stopped (default true; an uploaded copy has no later).
   */
  marks?: boolean;
  /**
   * Where the marks of a server sink are kept (a JSON file): a restarted `--url` import or
   * `forward` goes on where it stopped instead of sending the whole history again. Without it a
   * server sink's marks last as long as the process.
   */
  markFile?: string;
  now?: () => bigint;
};

const MARK_PREFIX = "import.agentsight:";

/**
 * Calls that could not be stored or sent; the marks stay where they were. `permanent` when asking
 * again cannot help (the server refused the token); `refused` when the server refused these calls
 * as they are (HTTP 400, 413: its request limit may be lower than the default), so that sending
 * them again cannot help but fewer at a time may.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent = false,
    readonly refused = false,
  ) {
    super(message);
  }
}

/**
 * Imports one AgentSight directory. `pass()` imports whatever is new since the last pass (or,
 * locally, since the last import of this directory) and returns what it did.
 */
export class AgentSightImporter {
  private readonly pageSize: number;
  private readonly interruptionPageSize: number;
  private readonly onProgress: (p: ImportProgress) => void;
  private readonly batchSize: number;
  private readonly maxRequestBytes: number;
  private readonly now: () => bigint;
  private readonly storeMarks: boolean;
  private readonly markFile: string | undefined;
  private marks: { calls: bigint; interruptions: bigint } | null = null;
  /** sessions counted in `stats.sessions` during the current pass */
  private sessionsSeen = new Set<string>();
  /** genai_events ids seen `pending`: re-read every pass until they settle */
  private readonly pendingIds = new Set<bigint>();

  constructor(
    readonly source: AgentSightSource,
    readonly sink: Sink,
    options: ImporterOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 1000;
    this.interruptionPageSize = options.interruptionPageSize ?? 100_000;
    this.onProgress = options.onProgress ?? (() => undefined);
    this.batchSize = options.batchSize ?? 200;
    this.maxRequestBytes = options.maxRequestBytes ?? 4 * 1024 * 1024;
    this.now = options.now ?? systemNowNs;
    this.storeMarks = options.marks ?? true;
    this.markFile = options.markFile;
  }

  /** The marks kept in `markFile` (none when it is missing or unreadable). */
  private readMarkFile(): MarkFile {
    try {
      const read = JSON.parse(fs.readFileSync(this.markFile!, "utf8")) as unknown;
      return read && typeof read === "object" ? (read as MarkFile) : {};
    } catch {
      return {};
    }
  }

  private markKey(table: TableName): string {
    return `${MARK_PREFIX}${this.source.dir}:${table}`;
  }

  private async loadMarks(): Promise<{ calls: bigint; interruptions: bigint }> {
    if (this.marks) return this.marks;
    this.marks = { calls: 0n, interruptions: 0n };
    if (this.sink.kind === "remote" && this.markFile && this.storeMarks) {
      // a mark counts for the file it was taken in: one made anew while the import was stopped
      // numbers its rows from 1 again, and may have passed the old mark already. The row at the
      // mark says which (an inode says nothing: a deleted file's is given to the next one)
      const kept = this.readMarkFile();
      if (/^\d+$/.test(kept.genai_events ?? "")) {
        const mark = BigInt(kept.genai_events!);
        const sameFile = mark === 0n || kept.genai_events_at === undefined || this.source.callIdAt(mark) === kept.genai_events_at;
        if (sameFile) this.marks.calls = mark;
        else console.warn(`[import] ${this.source.dir}: AgentSight's genai_events file is not the one imported from before; reading it from the start`);
      }
    }
    if (this.sink.kind === "local" && this.storeMarks) {
      const rows = await this.sink.db.setting.findMany({ where: { key: { in: [this.markKey("genai_events"), this.markKey("interruption_events")] } } });
      for (const r of rows) {
        if (!/^\d+$/.test(r.value)) continue;
        if (r.key === this.markKey("genai_events")) this.marks.calls = BigInt(r.value);
        else this.marks.interruptions = BigInt(r.value);
      }
    }
    return this.marks;
  }

  /**
   * A mark past the file's last id: the file was made anew (AgentSight's data deleted, ids from 1
   * again), and every row up to the old mark would be passed over in silence. Reads it from the start
   * (rows imported before are not stored twice) and says so on stderr.
   */
  private async startOverIfNew(table: TableName, mark: bigint): Promise<bigint> {
    const last = this.source.lastId(table);
    // an empty table is no sign (AgentSight's retention may have deleted every row; ids go on)
    if (mark === 0n || last === null || last >= mark) return mark;
    console.warn(
      `[import] ${table}: the file's ids end at ${last}, below the ${mark} imported from it before: a new file (AgentSight started afresh?); reading it from the start`,
    );
    await this.saveMark(table, 0n);
    return 0n;
  }

  private async saveMark(table: TableName, value: bigint): Promise<void> {
    if (!this.storeMarks) return;
    if (this.sink.kind === "remote") {
      if (!this.markFile) return;
      // written whole and renamed into place: a crash leaves the old marks or the new, never half
      const tmp = `${this.markFile}.${process.pid}.tmp`;
      fs.mkdirSync(path.dirname(this.markFile), { recursive: true });
      const at = table === "genai_events" && value > 0n ? { genai_events_at: this.source.callIdAt(value) ?? undefined } : {};
      fs.writeFileSync(tmp, JSON.stringify({ ...this.readMarkFile(), [table]: String(value), ...at }));
      fs.renameSync(tmp, this.markFile);
      return;
    }
    const key = this.markKey(table);
    await this.sink.db.setting.upsert({ where: { key }, create: { key, value: String(value) }, update: { value: String(value) } });
  }

  /** The mark, in the transaction that stores the rows up to it. */
  private async saveMarkIn(sql: Sql, table: TableName, value: bigint): Promise<void> {
    if (!this.storeMarks) return;
    await insertRows(sql, "Setting", [{ key: this.markKey(table), value: String(value) }], { key: ["key"], update: ["value"] });
  }

  /**
   * Imports everything new once — or, once `signal` aborts, up to the end of the page under way
   * (its high-water mark saved: the next pass goes on from there). Throws DeliveryError when a
   * batch could not be stored or sent.
   */
  async pass(signal?: AbortSignal): Promise<ImportStats> {
    const changed = this.source.changedFiles();
    if (changed.length) {
      this.source.reopen();
      const marks = await this.loadMarks();
      for (const { table } of changed.filter((c) => c.replaced)) {
        // a file made anew numbers its rows from 1 again: read from the start (what is stored stays once)
        console.warn(`[import] ${this.source.dir}: AgentSight's ${table} file was made anew; reading it from the start`);
        if (table === "genai_events") {
          marks.calls = 0n;
          this.pendingIds.clear(); // ids of the old file
        } else marks.interruptions = 0n;
        await this.saveMark(table, 0n);
      }
    }
    const stats = emptyStats();
    this.sessionsSeen = new Set();
    await this.passCalls(stats, signal);
    if (this.sink.kind === "local" && !signal?.aborted) await this.passInterruptions(this.sink.db, stats, signal);
    return stats;
  }

  // ── calls ─────────────────────────────────────────────────────────────────────────────

  private async passCalls(stats: ImportStats, signal?: AbortSignal): Promise<void> {
    const marks = await this.loadMarks();
    // Rows that were pending last time come first: they may have settled meanwhile.
    if (this.pendingIds.size) {
      const again = this.source.callsByIds([...this.pendingIds]);
      const waiting = new Set(this.pendingIds);
      this.pendingIds.clear();
      try {
        await this.importCallRows(again, stats);
      } catch (e) {
        for (const id of waiting) this.pendingIds.add(id);
        throw e;
      }
    }
    marks.calls = await this.startOverIfNew("genai_events", marks.calls);
    let cursor = marks.calls;
    const progress = this.progressOf("genai_events", cursor);
    for (;;) {
      const rows = this.source.callsAfter(cursor, this.pageSize);
      if (!rows.length) break;
      await this.importCallRows(rows, stats);
      progress(rows.length);
      cursor = BigInt(rows[rows.length - 1].id as bigint);
      // Never past a row still pending: a restarted import must look at it again.
      const floor = this.pendingIds.size ? [...this.pendingIds].reduce((a, b) => (b < a ? b : a)) - 1n : cursor;
      const mark = floor < cursor ? floor : cursor;
      if (mark > marks.calls) {
        marks.calls = mark;
        await this.saveMark("genai_events", mark);
      }
      if (rows.length < this.pageSize || signal?.aborted) break;
    }
    // the next pass continues after the rows read now; pending ones are re-read by id
    if (cursor > marks.calls) marks.calls = cursor;
    stats.calls.pending = this.pendingIds.size;
  }

  private async importCallRows(rows: SourceRow[], stats: ImportStats): Promise<void> {
    const now = this.now();
    const wire: WireCall[] = [];
    for (const row of rows) {
      const m = mapCall(row, now);
      if (m.kind === "pending") this.pendingIds.add(BigInt(row.id as bigint));
      else if (m.kind === "skip") skip(stats, "calls", m.reason);
      else wire.push(m.call);
    }
    for (const batch of this.batches(wire)) await this.deliver(batch, stats);
  }

  /** Batches of at most `batchSize` calls and (for a server) `maxRequestBytes` of JSON. */
  private *batches(calls: WireCall[]): Generator<WireCall[]> {
    let batch: WireCall[] = [];
    let bytes = 2;
    for (const c of calls) {
      const size = this.sink.kind === "remote" ? Buffer.byteLength(JSON.stringify(c)) + 1 : 0;
      if (batch.length && (batch.length >= this.batchSize || bytes + size > this.maxRequestBytes)) {
        yield batch;
        batch = [];
        bytes = 2;
      }
      batch.push(c);
      bytes += size;
    }
    if (batch.length) yield batch;
  }

  private async deliver(batch: WireCall[], stats: ImportStats): Promise<void> {
    // The API's own validation: a row it would reject is skipped here, not the whole batch
    // (a server would reject the batch, and a forwarder would retry it forever).
    const calls: NormalizedCall[] = [];
    const valid: WireCall[] = [];
    for (const c of batch) {
      const parsed = callSchema.safeParse(c);
      const bytes = this.sink.kind === "remote" ? Buffer.byteLength(JSON.stringify(c)) : 0;
      if (bytes > MAX_REMOTE_CALL_BYTES) {
        // a server answers 413 to the request it is in, again and again
        skip(stats, "calls", `call ${c.call_id}: ${bytes} bytes of JSON, more than a server takes in one request (${MAX_REMOTE_CALL_BYTES})`);
      } else if (parsed.success) {
        calls.push(parsed.data);
        valid.push(c);
      } else {
        const issue = parsed.error.issues[0];
        skip(stats, "calls", `call ${c.call_id}: ${issue.path.join(".") || "call"}: ${issue.message}`);
      }
    }
    if (!calls.length) return;
    if (this.sink.kind === "remote") return this.send(this.sink.postCalls, valid, stats);
    let result: IngestResult;
    try {
      await this.countSessions(this.sink.db, calls, stats);
      result = await ingestCalls(this.sink.db, calls, undefined, "import");
    } catch (e) {
      throw new DeliveryError(`Cannot store calls: ${(e as Error).message}`);
    }
    count(stats, result);
  }

  /**
   * Posts `calls` to the server. A batch it refuses is halved until each refused call is alone,
   * and that call is skipped with the server's reason: a follower would otherwise send it again
   * at every pass, and nothing after it would ever arrive.
   */
  private async send(postCalls: (calls: WireCall[]) => Promise<IngestResult>, calls: WireCall[], stats: ImportStats): Promise<void> {
    try {
      count(stats, await postCalls(calls));
    } catch (e) {
      if (!(e instanceof DeliveryError && e.refused)) throw e;
      if (calls.length === 1) return skip(stats, "calls", `call ${calls[0].call_id}: the server refused it: ${e.message}`);
      const half = Math.ceil(calls.length / 2);
      await this.send(postCalls, calls.slice(0, half), stats);
      await this.send(postCalls, calls.slice(half), stats);
    }
  }

  /** Counts the sessions of `calls` not counted yet in this pass as new or already known. */
  private async countSessions(db: Db, calls: NormalizedCall[], stats: ImportStats): Promise<void> {
    const ids = [...new Set(calls.map((c) => callKeys(c).sessionId))].filter((id) => !this.sessionsSeen.has(id));
    if (!ids.length) return;
    const known = await db.session.count({ where: { id: { in: ids } } });
    for (const id of ids) this.sessionsSeen.add(id);
    stats.sessions.present += known;
    stats.sessions.imported += ids.length - known;
  }

  // ── interruptions (local only: the ingest API takes calls, not detections) ────────────

  private async passInterruptions(db: Db, stats: ImportStats, signal?: AbortSignal): Promise<void> {
    const marks = await this.loadMarks();
    marks.interruptions = await this.startOverIfNew("interruption_events", marks.interruptions);
    const progress = this.progressOf("interruption_events", marks.interruptions);
    for (;;) {
      const rows = this.source.interruptionsAfter(marks.interruptions, this.interruptionPageSize);
      if (!rows.length) break;
      const mark = BigInt(rows[rows.length - 1].id as bigint);
      addStats(stats, await this.importInterruptionRows(db, rows, mark));
      marks.interruptions = mark;
      progress(rows.length);
      if (rows.length < this.interruptionPageSize || signal?.aborted) break;
    }
    // the per-session counts take the import's changes now, not on the first read after it
    await foldOpenCounts(db);
  }

  /** One page in one transaction: the new interruptions, the resolve activity of those resolved, the mark. */
  private async importInterruptionRows(db: Db, rows: SourceRow[], mark: bigint): Promise<ImportStats> {
    const now = this.now();
    try {
      return await sqlTransaction(db, async (sql) => {
        const page = emptyStats(); // afresh if PostgreSQL runs the transaction again
        const callIds = rows.map((r) => r.call_id).filter((v): v is string => typeof v === "string" && v !== "");
        const links = new Map<string, CallLink>();
        for (const c of await selectIn(sql, "Call", "id", callIds, '"id", "turnId", "model"')) {
          links.set(String(c.id), { turnId: c.turnId == null ? null : String(c.turnId), model: c.model == null ? null : String(c.model) });
        }
        const mapped: Interrupted[] = [];
        for (const r of rows) {
          const m = mapInterruption(r, typeof r.call_id === "string" ? links.get(r.call_id) : undefined, now);
          if (m.kind === "skip") skip(page, "interruptions", m.reason);
          else mapped.push(m);
        }
        const before = await lastRowid(sql, "Interruption");
        // Ids stored before (a re-run) or twice in AgentSight's own file are inserted once.
        // The open counts' change log gets the page's unresolved rows in one statement, not row by row.
        const inserted = await insertCountedInBulk(sql, () => insertNew(sql, "Interruption", mapped.map((m) => m.row), "id"));
        let fresh = 0;
        let resolved = 0;
        for (let i = 0; i < mapped.length; i++) {
          if (!inserted[i]) continue;
          fresh++;
          if (mapped[i].row.status === "resolved") resolved++;
        }
        await this.insertResolveActivity(sql, before, () => mapped.filter((m, i) => inserted[i] && m.row.status === "resolved"), now);
        await this.saveMarkIn(sql, "interruption_events", mark);
        // last: the open ones arrive as new when the page commits, as ingest's do (the alert scan
        // reads by arrival; a long page stamped at its start could land behind the scan's mark)
        await stampAtCommit(sql, mapped.filter((m, i) => inserted[i] && m.row.status !== "resolved").map((m) => m.row));
        page.interruptions.imported += fresh;
        page.interruptions.present += mapped.length - fresh;
        page.interruptions.resolved += resolved;
        return page;
      });
    } catch (e) {
      throw new DeliveryError(`Cannot store interruptions: ${(e as Error).message}`);
    }
  }

  /**
   * The resolve activity of the interruptions the page inserted resolved. On SQLite one statement
   * writes it from the rows themselves, those above the rowid `before` (the page's, as its
   * transaction is the only writer), in the order they were inserted; elsewhere from `resolved`.
   */
  private async insertResolveActivity(sql: Sql, before: number | bigint | null, resolved: () => Interrupted[], now: bigint): Promise<void> {
    const activity = { actor: IMPORT_ACTOR, action: "resolve", before: RESOLVE_BEFORE, after: RESOLVE_AFTER, note: "resolved in AgentSight before the import", atNs: now };
    if (before !== null) {
      await sql.run(
        `INSERT INTO "InterruptionActivity" ("interruptionId", "actor", "action", "before", "after", "note", "atNs")
         SELECT "id", ?, ?, ?, ?, ?, ? FROM "Interruption" WHERE rowid > ? AND "status" = 'resolved' ORDER BY rowid`,
        [...Object.values(activity), before],
      );
      return;
    }
    const rows = resolved().map((m) => ({ interruptionId: m.row.id, ...activity }));
    await insertRows(sql, "InterruptionActivity", rows, { key: ["id"], update: "nothing" });
  }

  /** Reports progress through `table` from `after` on: call the result with each page's row count. */
  private progressOf(table: TableName, after: bigint): (rows: number) => void {
    const p: ImportProgress = { table, done: 0, total: this.source.estimateAfter(table, after) };
    if (p.total) this.onProgress({ ...p });
    return (rows) => {
      p.done += rows;
      p.total = Math.max(p.total, p.done);
      this.onProgress({ ...p });
    };
  }
}

/** An interruption_events row that maps to an interruption. */
type Interrupted = Extract<InterruptionMapping, { kind: "interruption" }>;

const RESOLVE_BEFORE = JSON.stringify({ status: "open", assignee: null });
const RESOLVE_AFTER = JSON.stringify({ status: "resolved", assignee: null });

function count(stats: ImportStats, result: IngestResult): void {
  stats.calls.imported += result.accepted;
  stats.calls.present += result.duplicates;
  stats.detected += result.interruptions;
}

function skip(stats: ImportStats, what: "calls" | "interruptions", reason: string): void {
  stats[what].skipped += 1;
  if (stats.problems.length < MAX_PROBLEMS) stats.problems.push(reason);
}

export type FollowOptions = {
  intervalMs: number;
  signal: AbortSignal;
  /** after every pass, with what it did (or why it failed: the next pass retries) */
  onPass?: (stats: ImportStats | null, error: Error | null) => void;
};

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

/**
 * Runs passes every `intervalMs` until `signal` aborts, and returns the totals. A pass that
 * fails (server down, database locked) is reported and retried on the next interval: nothing
 * past the last delivered batch is marked done.
 */
export async function follow(importer: AgentSightImporter, options: FollowOptions): Promise<ImportStats> {
  const total = emptyStats();
  let passed = false;
  while (!options.signal.aborted) {
    try {
      const stats = await importer.pass(options.signal); // a stop ends the pass at its page under way
      addStats(total, stats);
      total.calls.pending = stats.calls.pending;
      passed = true;
      options.onPass?.(stats, null);
    } catch (e) {
      // A refused token fails every pass alike: stop. Anything else (the server or the database
      // away, AgentSight's file busy or being replaced) may pass next time, once a pass has
      // worked at all (before that, it is more likely a mistake to report than to wait out).
      if ((e instanceof DeliveryError && e.permanent) || !(e instanceof DeliveryError || passed)) throw e;
      options.onPass?.(null, e as Error);
    }
    await sleep(options.intervalMs, options.signal);
  }
  return total;
}
