// Multi-row statements for batches: one INSERT … ON CONFLICT per table instead of one ORM call
// per row, and id lookups in chunks. The syntax is shared by SQLite and PostgreSQL.
import { marks, type Row, type Sql } from "./sql";

/**
 * On a key conflict: the columns set from the new row (or "all", or "nothing"); those in
 * `greatest` only when the new value is greater, those in `least` only when it is smaller,
 * those in `keep` only when the new value is not null; with `where` (a condition on the stored
 * row), only rows that meet it are updated.
 */
export type OnConflict = { key: string[]; update: string[] | "all" | "nothing"; greatest?: string[]; least?: string[]; keep?: string[]; where?: string };

const MAX_PARAMS = 30_000;
const LOOKUP_CHUNK = 500;

export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function conflictClause(table: string, columns: string[], onConflict: OnConflict): string {
  const key = onConflict.key.map(quote).join(", ");
  const update = onConflict.update === "all" ? columns.filter((c) => !onConflict.key.includes(c)) : onConflict.update;
  if (update === "nothing" || !update.length) return `ON CONFLICT (${key}) DO NOTHING`;
  const kept = (c: string, wins: ">" | "<") => `${quote(c)} = CASE WHEN excluded.${quote(c)} ${wins} ${quote(table)}.${quote(c)} THEN excluded.${quote(c)} ELSE ${quote(table)}.${quote(c)} END`;
  const set = (c: string) =>
    onConflict.greatest?.includes(c) ? kept(c, ">")
    : onConflict.least?.includes(c) ? kept(c, "<")
    : onConflict.keep?.includes(c) ? `${quote(c)} = COALESCE(excluded.${quote(c)}, ${quote(table)}.${quote(c)})`
    : `${quote(c)} = excluded.${quote(c)}`;
  return `ON CONFLICT (${key}) DO UPDATE SET ${update.map(set).join(", ")}${onConflict.where ? ` WHERE ${onConflict.where}` : ""}`;
}

/** Inserts `rows` (all with the same keys) into `table`, resolving key conflicts as told. */
export async function insertRows(sql: Sql, table: string, rows: Row[], onConflict: OnConflict): Promise<void> {
  await eachStatement(table, rows, onConflict, "", (text, params) => sql.run(text, params));
}

/** `insertRows` that answers the keys (of a one-column key) it inserted or updated: not those a conflict left alone. */
export async function upsertRows(sql: Sql, table: string, rows: Row[], onConflict: OnConflict & { key: [string] }): Promise<Set<string>> {
  const written = new Set<string>();
  const key = onConflict.key[0];
  await eachStatement(table, rows, onConflict, ` RETURNING ${quote(key)}`, async (text, params) => {
    for (const r of await sql.all(text, params)) written.add(String(r[key]));
  });
  return written;
}

async function eachStatement(table: string, rows: Row[], onConflict: OnConflict, returning: string, send: (text: string, params: unknown[]) => Promise<void>): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const tuple = `(${marks(columns.length)})`;
  const head = `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES `;
  const tail = ` ${conflictClause(table, columns, onConflict)}${returning}`;
  for (let start = 0; start < rows.length; start += perStatement) {
    const slice = rows.slice(start, start + perStatement);
    const params: unknown[] = [];
    for (const row of slice) for (const c of columns) params.push(row[c]);
    await send(head + Array(slice.length).fill(tuple).join(", ") + tail, params);
  }
}

/**
 * Inserts the rows whose `key` is not stored yet, and says for each row whether it was (a key
 * twice in `rows` is inserted once). SQLite runs one prepared one-row statement per row: for
 * SQLite that is about a third less work than statements of many rows (bulk imports, measured
 * in BENCHMARKS.md); PostgreSQL gets statements of many rows, RETURNING the keys they inserted.
 */
export async function insertNew(sql: Sql, table: string, rows: Row[], key: string): Promise<boolean[]> {
  if (!rows.length) return [];
  const columns = Object.keys(rows[0]);
  const head = `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES `;
  const tail = ` ON CONFLICT (${quote(key)}) DO NOTHING`;
  if (sql.dialect === "sqlite") {
    const changed = await sql.runEach(`${head}(${marks(columns.length)})${tail}`, rows.map((r) => columns.map((c) => r[c])));
    return changed.map((n) => n > 0);
  }
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const inserted = new Set<string>();
  for (let start = 0; start < rows.length; start += perStatement) {
    const slice = rows.slice(start, start + perStatement);
    const params: unknown[] = [];
    for (const row of slice) for (const c of columns) params.push(row[c]);
    const returned = await sql.all(`${head}${Array(slice.length).fill(`(${marks(columns.length)})`).join(", ")}${tail} RETURNING ${quote(key)}`, params);
    for (const r of returned) inserted.add(String(r[key]));
  }
  // a key inserted by this call counts for the first row that has it
  return rows.map((r) => inserted.delete(String(r[key])));
}

/** Rows of `table` whose `column` is one of `values` (deduplicated, in chunks issued together: one round trip on PostgreSQL). */
export async function selectIn(sql: Sql, table: string, column: string, values: string[], select = "*", extraWhere = ""): Promise<Row[]> {
  const unique = [...new Set(values)];
  const reads: Promise<Row[]>[] = [];
  for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
    const chunk = unique.slice(i, i + LOOKUP_CHUNK);
    const where = `${quote(column)} IN (${marks(chunk.length)})${extraWhere ? ` AND ${extraWhere}` : ""}`;
    reads.push(sql.all(`SELECT ${select} FROM ${quote(table)} WHERE ${where}`, chunk));
  }
  return (await Promise.all(reads)).flat();
}

/**
 * `read` of `items` by chunks of `size`, one after the other, the results joined in order: for
 * ORM reads of id lists, which Prisma refuses past 999 values on SQLite when ordered or grouped (P2029).
 */
export async function inChunks<I, T>(items: readonly I[], size: number, read: (chunk: I[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await read(items.slice(i, i + size))));
  return out;
}

/** Which of `ids` exist as primary keys of `table`. */
export async function existingIds(sql: Sql, table: string, ids: string[]): Promise<Set<string>> {
  return new Set((await selectIn(sql, table, "id", ids, '"id"')).map((r) => String(r.id)));
}

/**
 * SQLite: the largest rowid of `table` (0 when empty); null on PostgreSQL. Inside a transaction
 * that then writes, the rows it inserts after this call are exactly those with a larger rowid:
 * SQLite gives a new row the largest rowid + 1, and no other connection's write can come between
 * (a transaction whose snapshot another writer has moved past cannot write: SQLITE_BUSY).
 */
export async function lastRowid(sql: Sql, table: string): Promise<number | bigint | null> {
  if (sql.dialect !== "sqlite") return null;
  const [{ last }] = await sql.all(`SELECT COALESCE(MAX(rowid), 0) AS "last" FROM ${quote(table)}`);
  return last as number | bigint;
}
