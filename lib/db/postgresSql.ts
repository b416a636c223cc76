// Plain SQL on a PostgreSQL connection inside a transaction, in as few round trips as the code's
// order allows. Every statement costs a round trip, and on a busy 2-core machine the socket
// write alone is tens of microseconds of the server's only request thread: an ingest group was
// 19 of them. Here a statement whose result nobody reads (`run`) waits, and goes with the next
// statement whose result is read; reads issued together (Promise.all) go together; BEGIN goes
// with the first, COMMIT with the last. A batch is one simple-protocol query of several
// statements, so values are written into the text as quoted literals — untyped, like the
// parameters pg sends, and resolved from their context the same way. A statement that fails
// aborts the transaction: every statement waiting or sent after it fails with its error.
import type pg from "pg";
import type { Row, Sql } from "./sql";

// PostgreSQL text cannot hold U+0000 (an agent's output can): it is stored as U+FFFD.
export const withoutNul = (v: unknown): unknown => (v === undefined ? null : typeof v === "string" && v.includes("\u0000") ? v.replace(/\u0000/g, "\uFFFD") : v);

// int8 as bigint, as Prisma's raw queries read it (pg's default is a string).
const INT8 = 20;
const parseInt8 = (v: string) => BigInt(v);
export function postgresTypes(pgModule: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => (oid === INT8 && format !== "binary" ? parseInt8 : pgModule.types.getTypeParser(oid, format as "text"))) as pg.CustomTypesConfig["getTypeParser"],
  };
}

/** What text needs beyond quotes around it: a quote doubled, a backslash (E'' and doubled), U+0000 replaced. */
const NEEDS_ESCAPES = /['\\\u0000]/;

/** A value as a quoted SQL literal: the text pg would send for it as a parameter. */
export function literal(value: unknown): string {
  if (typeof value === "string" && !NEEDS_ESCAPES.test(value)) return `'${value}'`; // most values: one scan
  const v = withoutNul(value);
  if (v === null) return "NULL";
  let text: string;
  if (typeof v === "string") text = v;
  else if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return `'${v}'`;
  else if (v instanceof Date) text = v.toISOString();
  else if (Buffer.isBuffer(v)) return `'\\x${v.toString("hex")}'`;
  else throw new TypeError(`cannot write a ${typeof v} into SQL text`);
  const quoted = `'${text.replace(/'/g, "''")}'`;
  return text.includes("\\") ? `E${quoted.replace(/\\/g, "\\\\")}` : quoted;
}

/** `sql` with its `?` placeholders (never inside literals in our SQL) replaced by `params`. */
export function inlined(sql: string, params: unknown[]): string {
  // an indexOf loop: twice as fast as replace() with a callback on a multi-row INSERT
  let text = "";
  let from = 0;
  let i = 0;
  for (let at = sql.indexOf("?"); at !== -1; at = sql.indexOf("?", from)) {
    text += sql.slice(from, at) + literal(params[i++]);
    from = at + 1;
  }
  if (i !== params.length) throw new Error(`SQL has ${i} placeholders for ${params.length} values`);
  return text + sql.slice(from);
}

type Waiting = { text: string; settle?: { resolve: (result: pg.QueryResult<Row>) => void; reject: (e: unknown) => void } };

/** Statements waiting without a reader are sent anyway past this much text (a long import page). */
const MAX_WAITING_CHARS = 4 * 1024 * 1024;

export class PostgresSql implements Sql {
  readonly dialect = "postgres";
  private waiting: Waiting[] = [];
  private waitingChars = 0;
  private sendScheduled = false;
  /** The first failure of a batch: what every later statement of this transaction fails with. */
  private failure: { error: unknown } | null = null;
  /** Committed or rolled back: a statement now (a sibling of a failed read) is refused, not sent. */
  private closed = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly types: pg.CustomTypesConfig,
  ) {}

  /** Opens the transaction (sent with the first statement that is read). */
  begin(statementTimeoutMs: number): void {
    this.wait("BEGIN");
    this.wait(`SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`);
  }

  /** Sends what waits, then COMMIT, and resolves once committed. */
  async commit(): Promise<void> {
    const reply = await this.read("COMMIT");
    this.closed = true;
    // COMMIT of a transaction an earlier statement aborted answers ROLLBACK, not an error
    if (reply.command !== "COMMIT") throw this.failure?.error ?? new Error(`COMMIT answered ${reply.command}`);
  }

  /** Forgets what waits and rolls back (what was sent is undone). */
  async rollback(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting) w.settle?.reject(new Error("transaction rolled back"));
    this.waiting = [];
    this.waitingChars = 0;
    await this.client.query("ROLLBACK");
  }

  async all(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.read(inlined(sql, params))).rows;
  }

  async run(sql: string, params: unknown[] = []): Promise<void> {
    this.refuseWhenDone();
    this.wait(inlined(sql, params));
  }

  async runEach(sql: string, paramLists: unknown[][]): Promise<number[]> {
    const results = await Promise.all(paramLists.map((params) => this.read(inlined(sql, params))));
    return results.map((r) => r.rowCount ?? 0);
  }

  private wait(text: string, settle?: Waiting["settle"]): void {
    this.waiting.push({ text, settle });
    this.waitingChars += text.length;
    if (this.waitingChars >= MAX_WAITING_CHARS) this.send();
  }

  private refuseWhenDone(): void {
    if (this.failure) throw this.failure.error;
    if (this.closed) throw new Error("statement after the end of its transaction");
  }

  private read(text: string): Promise<pg.QueryResult<Row>> {
    try {
      this.refuseWhenDone();
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise((resolve, reject) => {
      this.wait(text, { resolve, reject });
      if (this.sendScheduled) return;
      // reads issued in the same turn (Promise.all) join this batch
      this.sendScheduled = true;
      queueMicrotask(() => {
        this.sendScheduled = false;
        this.send();
      });
    });
  }

  private send(): void {
    if (!this.waiting.length) return;
    const batch = this.waiting;
    this.waiting = [];
    this.waitingChars = 0;
    const text = batch.map((w) => w.text).join(";\n");
    this.client.query<Row>({ text, types: this.types }).then(
      (reply) => {
        // an earlier batch failed: this one ran in an aborted transaction (or not at all)
        if (this.failure) return this.fail(batch, this.failure.error);
        const results = Array.isArray(reply) ? (reply as pg.QueryResult<Row>[]) : [reply];
        if (results.length !== batch.length) return this.fail(batch, new Error(`${batch.length} statements sent, ${results.length} results`));
        batch.forEach((w, i) => w.settle?.resolve(results[i]));
      },
      (e: unknown) => this.fail(batch, e),
    );
  }

  private fail(batch: Waiting[], error: unknown): void {
    this.failure ??= { error };
    for (const w of batch) w.settle?.reject(this.failure.error);
  }
}
