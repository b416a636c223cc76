// Reading an AgentSight data directory (SPEC §2.5): `genai_events.db` (one row per LLM call)
// and `interruption_events.db` (AgentSight's own detections). Both are opened read-only, and
// every integer is read as a bigint so 19-digit nanosecond values stay exact.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

export const GENAI_FILE = "genai_events.db";
export const INTERRUPTIONS_FILE = "interruption_events.db";

/** Columns an AgentSight table must have to be read at all (the others are optional). */
const REQUIRED = {
  genai_events: ["id", "call_id", "start_timestamp_ns"],
  interruption_events: ["id", "interruption_id", "interruption_type", "severity", "occurred_at_ns"],
} as const;

export type SourceRow = Record<string, unknown>;

export type TableName = keyof typeof REQUIRED;

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

/**
 * The data directory is unusable as given: a usage error (exit 2) for the CLI. `problem` names
 * the table whose file is unusable and why, without the file's path (for an upload's 400).
 */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly problem?: { table: TableName; reason: string },
  ) {
    super(message);
  }
}

type Table = { db: Database.Database; page: Database.Statement; bounds: Database.Statement; file: string };

function hasSqliteHeader(file: string): boolean {
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = fs.openSync(file, "r");
  try {
    return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } finally {
    fs.closeSync(fd);
  }
}

function openTable(file: string, table: TableName): Table {
  const fail = (reason: string, hint = "") => new SourceError(`${file} ${reason}${hint}`, { table, reason });
  let db: Database.Database;
  try {
    if (!hasSqliteHeader(file)) throw fail("is not a SQLite database");
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.defaultSafeIntegers(true);
    db.pragma("busy_timeout = 5000"); // the AgentSight daemon may be writing
  } catch (e) {
    if (e instanceof SourceError) throw e;
    throw fail(`cannot be opened: ${(e as Error).message}`);
  }
  try {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
    if (!exists) throw fail(`has no table ${table}`, ": is this an AgentSight data directory?");
    const columns = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
    const missing = REQUIRED[table].filter((c) => !columns.has(c));
    if (missing.length) throw fail(`has a table ${table} without the column(s) ${missing.join(", ")}`, ": not an AgentSight store");
    // `id` is AUTOINCREMENT: new rows always get larger ids, so it is the high-water mark.
    const page = db.prepare(`SELECT * FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`);
    // Each answered from an index without reading the table (a COUNT over `id > ?` reads it all).
    const bounds = db.prepare(`SELECT (SELECT COUNT(*) FROM ${table}) AS "rows", (SELECT MAX(id) FROM ${table}) AS "last"`);
    return { db, page, bounds, file };
  } catch (e) {
    db.close();
    if (e instanceof SourceError) throw e;
    throw fail(`cannot be read: ${(e as Error).message}`);
  }
}

/** Which file a path names now (device and inode), or null when there is none. */
function fileIdentity(file: string): string | null {
  try {
    const s = fs.statSync(file);
    return `${s.dev}:${s.ino}`;
  } catch {
    return null;
  }
}

/** An open AgentSight data directory. Either file may be missing, not both. */
export class AgentSightSource {
  genai: Table | null;
  interruptions: Table | null;
  /** the files' identities when opened: AgentSight starting afresh deletes them and makes new ones */
  private opened: Map<string, string | null>;

  private constructor(
    readonly dir: string,
    genai: Table | null,
    interruptions: Table | null,
  ) {
    this.genai = genai;
    this.interruptions = interruptions;
    this.opened = new Map([GENAI_FILE, INTERRUPTIONS_FILE].map((f) => [f, fileIdentity(path.join(dir, f))]));
  }

  /**
   * The files made since they were opened: `replaced` when one was there and was made anew (the
   * open handle still reads the deleted one, so a long `--follow` would import nothing more),
   * else made where there was none. `reopen` reads the new ones.
   */
  changedFiles(): { table: TableName; replaced: boolean }[] {
    return [...this.opened].flatMap(([f, was]) => {
      const now = fileIdentity(path.join(this.dir, f));
      return now !== null && now !== was ? [{ table: f === GENAI_FILE ? ("genai_events" as const) : ("interruption_events" as const), replaced: was !== null }] : [];
    });
  }

  /** The call_id of genai_events row `id`, or null when the file has no such row. */
  callIdAt(id: bigint): string | null {
    const row = this.genai?.db.prepare("SELECT call_id FROM genai_events WHERE id = ?").get(id) as { call_id: string | null } | undefined;
    return row ? String(row.call_id) : null;
  }

  /** Opens the directory's files again, in place (readers keep their reference to this source). */
  reopen(): void {
    const fresh = AgentSightSource.open(this.dir);
    this.close();
    this.genai = fresh.genai;
    this.interruptions = fresh.interruptions;
    this.opened = fresh.opened;
  }

  static open(dir: string): AgentSightSource {
    const abs = path.resolve(dir);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      throw new SourceError(`No such directory: ${abs}`);
    }
    if (!stat.isDirectory()) throw new SourceError(`Not a directory: ${abs} (give the AgentSight data directory)`);
    const genaiFile = path.join(abs, GENAI_FILE);
    const intFile = path.join(abs, INTERRUPTIONS_FILE);
    const hasGenai = fs.existsSync(genaiFile);
    const hasInt = fs.existsSync(intFile);
    if (!hasGenai && !hasInt) throw new SourceError(`Neither ${GENAI_FILE} nor ${INTERRUPTIONS_FILE} is in ${abs}: is this an AgentSight data directory?`);
    const genai = hasGenai ? openTable(genaiFile, "genai_events") : null;
    let interruptions: Table | null = null;
    try {
      interruptions = hasInt ? openTable(intFile, "interruption_events") : null;
    } catch (e) {
      genai?.db.close();
      throw e;
    }
    return new AgentSightSource(fs.realpathSync(abs), genai, interruptions);
  }

  /**
   * About how many rows of `table` have `id > after`: ids only grow and AgentSight deletes its
   * oldest rows, so the ids above `after` are nearly all taken (never more than the table holds).
   */
  estimateAfter(table: TableName, after: bigint): number {
    const t = table === "genai_events" ? this.genai : this.interruptions;
    if (!t) return 0;
    const { rows, last } = t.bounds.get() as { rows: bigint; last: bigint | null };
    const above = last === null || last <= after ? 0n : last - after;
    return Number(above < rows ? above : rows);
  }

  /** The largest id of `table` (null when it is empty or absent): ids only grow in one file. */
  lastId(table: TableName): bigint | null {
    const t = table === "genai_events" ? this.genai : this.interruptions;
    return t ? ((t.bounds.get() as { last: bigint | null }).last ?? null) : null;
  }

  /** Up to `limit` genai_events rows with `id > after`, in id order. */
  callsAfter(after: bigint, limit: number): SourceRow[] {
    return this.genai ? (this.genai.page.all(after, limit) as SourceRow[]) : [];
  }

  /** The genai_events rows with these ids (rows seen `pending` before), in id order. */
  callsByIds(ids: bigint[]): SourceRow[] {
    if (!this.genai || !ids.length) return [];
    const rows: SourceRow[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const sql = `SELECT * FROM genai_events WHERE id IN (${chunk.map(() => "?").join(", ")}) ORDER BY id`;
      rows.push(...(this.genai.db.prepare(sql).all(...chunk) as SourceRow[]));
    }
    return rows;
  }

  /** Up to `limit` interruption_events rows with `id > after`, in id order. */
  interruptionsAfter(after: bigint, limit: number): SourceRow[] {
    return this.interruptions ? (this.interruptions.page.all(after, limit) as SourceRow[]) : [];
  }

  close(): void {
    this.genai?.db.close();
    this.interruptions?.db.close();
  }
}
