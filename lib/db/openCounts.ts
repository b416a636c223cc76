// SessionOpenCount and SessionOpenCell: unresolved interruptions per session (and per session,
// type and severity). Triggers on Interruption, not application code, record every change, so
// that every write path — ingest, triage, bulk actions, sweeps, the AgentSight import, a
// hand-written UPDATE — keeps them exact. The triggers only append to SessionOpenDelta (+1 when
// an interruption is counted in, −1 when out): writers never update a shared counter row, so
// ingest and triage never wait for each other there, nor deadlock (when triggers updated the
// counter rows, a bulk resolve and an ingest touching the same sessions in different orders did,
// and PostgreSQL broke each cycle only after its 1 s deadlock_timeout). The readers of the
// tables fold the pending changes in first (`foldOpenCounts`, one folder at a time), and so does
// every sweep, so the log stays short.
// The triggers live here rather than in a migration because a later migration that rebuilds
// the Interruption table on SQLite (Prisma's way to change a column) drops them: every start
// checks that they are all there, as defined here, and otherwise creates them and recounts both
// tables (`ensureOpenCounts`). Changing a trigger's definition means giving it a new name, so
// that existing databases pick up the new one.
// A bulk insert (the AgentSight import) on SQLite logs what it inserted in one set-based
// statement instead (`insertCountedInBulk`): the insert trigger — even one doing nothing, by its
// mere presence — cost a third of the import's time.
import { SEVERITIES, UNASSIGNED, UNRESOLVED_STATUSES } from "../domain/interruptions";
import BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import type { Db } from "./client";
import { sessionCountJson, typeCountJson, typeCountsJson } from "./jsonSql";
import { lastRowid } from "./multiRow";
import { readSql, toNumbered, transaction, type Dialect, type Row, type Sql } from "./sql";

const TABLE = '"SessionOpenCount"';
const CELLS = '"SessionOpenCell"';
const DELTAS = '"SessionOpenDelta"';
const COUNTS = ["total", ...SEVERITIES] as const;
export const OPEN_COUNT_TRIGGERS = ["Interruption_open_counts_insert_v2", "Interruption_open_counts_delete_v2", "Interruption_open_counts_update_v2"] as const;
const TRIGGER_PREFIX = "Interruption_open_counts_";
const PG_FUNCTION = '"interruption_open_counts_v2"';
/** Functions of earlier trigger definitions, dropped with their triggers. */
const OLD_PG_FUNCTIONS = ['"interruption_open_counts_v1"'];
/** One key for everything that writes the two tables: a recount at start and the folds. */
const PG_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('sightdesk.openCounts', 0))";
/** Bounds that leave a stored bound as it is (MIN / MAX with them): a fold that only counts out. */
const NO_FIRST = "9223372036854775807";
const NO_LAST = "-1"; // timestamps are never negative
/** The columns whose change moves an interruption between counts. */
const COUNTED = ["status", "severity", "type", "sessionId", "occurredAtNs"];

const isOpen = (row: string) => `${row}."status" IN (${UNRESOLVED_STATUSES.map((s) => `'${s}'`).join(", ")})`;
const keyOf = (row: string) => `COALESCE(${row}."sessionId", '${UNASSIGNED}')`;

/**
 * The session's entry of session-counts as JSON, written from its row and its cells. On SQLite
 * the cells are joined in the order a subquery reads them (its primary key's: type, then
 * severity, byte order): an ORDER BY inside group_concat would make the schema unreadable to
 * SQLite before 3.44 (Debian 12's sqlite3).
 */
function entryOf(dialect: Dialect, key: string): string {
  const types =
    dialect === "postgres"
      ? `(SELECT ${typeCountsJson(dialect, '"type"', '"severity"', '"count"')} FROM ${CELLS} WHERE ${CELLS}."sessionId" = ${key})`
      : `(SELECT group_concat("json", ',') FROM (SELECT ${typeCountJson(dialect, '"type"', '"severity"', '"count"')} AS "json" FROM ${CELLS} WHERE ${CELLS}."sessionId" = ${key} ORDER BY "type", "severity"))`;
  return sessionCountJson(dialect, `${TABLE}."sessionId"`, `${TABLE}."total"`, (s) => `${TABLE}."${s}"`, `COALESCE(${types}, '')`);
}

/** Appends `row`'s change to the log: +1 counted in, −1 counted out (when `when` holds; rows of `from` when given). */
const deltaSql = (row: string, change: 1 | -1, when: string, from?: string) =>
  `INSERT INTO ${DELTAS} ("sessionId", "type", "severity", "occurredAtNs", "change")
    SELECT ${keyOf(row)}, ${row}."type", ${row}."severity", ${row}."occurredAtNs", ${change} ${from ? `FROM ${from} ` : ""}WHERE ${when}`;

const DELTAS_TABLE = `CREATE TABLE IF NOT EXISTS ${DELTAS} ("sessionId" TEXT NOT NULL, "type" TEXT NOT NULL, "severity" TEXT NOT NULL, "occurredAtNs" BIGINT NOT NULL, "change" INTEGER NOT NULL)`;

/** The statements that create the triggers (and, on PostgreSQL, their function). */
export function triggerSql(dialect: Dialect): string[] {
  const [insert, del, update] = OPEN_COUNT_TRIGGERS;
  const columns = COUNTED.map((c) => `"${c}"`).join(", ");
  const body = (statements: string[]) => statements.map((s) => `${s};`).join("\n");
  if (dialect === "sqlite") {
    return [
      DELTAS_TABLE,
      `CREATE TRIGGER "${insert}" AFTER INSERT ON "Interruption" WHEN ${isOpen("NEW")} BEGIN ${body([deltaSql("NEW", 1, "1")])} END`,
      `CREATE TRIGGER "${del}" AFTER DELETE ON "Interruption" WHEN ${isOpen("OLD")} BEGIN ${body([deltaSql("OLD", -1, "1")])} END`,
      `CREATE TRIGGER "${update}" AFTER UPDATE OF ${columns} ON "Interruption" WHEN ${isOpen("OLD")} OR ${isOpen("NEW")}
        BEGIN ${body([deltaSql("OLD", -1, isOpen("OLD")), deltaSql("NEW", 1, isOpen("NEW"))])} END`,
    ];
  }
  return [
    DELTAS_TABLE,
    `CREATE OR REPLACE FUNCTION ${PG_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP <> 'INSERT' AND ${isOpen("OLD")} THEN ${body([deltaSql("OLD", -1, "true")])} END IF;
       IF TG_OP <> 'DELETE' AND ${isOpen("NEW")} THEN ${body([deltaSql("NEW", 1, "true")])} END IF;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER "${insert}" AFTER INSERT ON "Interruption" FOR EACH ROW WHEN (${isOpen("NEW")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
    `CREATE TRIGGER "${del}" AFTER DELETE ON "Interruption" FOR EACH ROW WHEN (${isOpen("OLD")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
    `CREATE TRIGGER "${update}" AFTER UPDATE OF ${columns} ON "Interruption" FOR EACH ROW WHEN (${isOpen("OLD")} OR ${isOpen("NEW")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
  ];
}

/**
 * Both tables emptied, and every unresolved interruption logged as counted in: the fold that
 * follows counts them the way it counts every change (`install`).
 */
function recountSql(): string[] {
  const i = '"Interruption"';
  return [`DELETE FROM ${DELTAS}`, `DELETE FROM ${CELLS}`, `DELETE FROM ${TABLE}`, deltaSql(i, 1, isOpen(i), i)];
}

/** SQLite: logs +1 for each unresolved row of Interruption with a rowid above `?`, as the insert trigger would have. */
const loggedInsertsSql = () => deltaSql('"Interruption"', 1, `"Interruption".rowid > ? AND ${isOpen('"Interruption"')}`, '"Interruption"');

/**
 * Runs `insert` in the caller's transaction and logs the unresolved interruptions it inserted.
 * `insert` may only INSERT into Interruption.
 *
 * On SQLite the insert trigger is dropped for the while and created again, as it was, before
 * `insertCountedInBulk` returns; the rows are then logged in one set-based statement, with the
 * trigger's result. A trigger that does nothing still costs: with one on the table, SQLite
 * journals every page each one-row INSERT touches (a statement journal, in case a trigger
 * statement fails halfway), which doubled the cost of the import's inserts. Dropping it is
 * safe within the transaction: schema changes are transactional in SQLite, no other connection
 * sees the table without it (readers see the last commit, writers wait), and a failure rolls
 * the drop back with the rest. The rows inserted are those with a rowid above the largest
 * before (`lastRowid`).
 *
 * On PostgreSQL the trigger logs each row as usual (there a trigger costs no statement journal,
 * and other writers run at the same time).
 */
export async function insertCountedInBulk<T>(sql: Sql, insert: () => Promise<T>): Promise<T> {
  const [trigger] = OPEN_COUNT_TRIGGERS;
  if (sql.dialect !== "sqlite") return insert();
  const [definition] = await sql.all(`SELECT "sql" FROM sqlite_master WHERE "type" = 'trigger' AND "name" = ?`, [trigger]);
  // no trigger (a migration dropped it): the next start recounts everything anyway
  if (!definition) return insert();
  const last = await lastRowid(sql, "Interruption");
  await sql.run(`DROP TRIGGER "${trigger}"`);
  let result: T;
  try {
    result = await insert();
  } finally {
    await sql.run(String(definition.sql));
  }
  await sql.run(loggedInsertsSql(), [last]);
  return result;
}

async function presentTriggers(sql: Sql): Promise<string[]> {
  const rows =
    sql.dialect === "postgres"
      ? await sql.all(`SELECT "tgname"::text AS "name" FROM pg_trigger WHERE NOT "tgisinternal" AND "tgname" LIKE '${TRIGGER_PREFIX}%'`)
      : await sql.all(`SELECT "name" FROM sqlite_master WHERE "type" = 'trigger' AND "name" LIKE '${TRIGGER_PREFIX}%'`);
  return rows.map((r) => String(r.name)).sort();
}

const current = (present: string[]) => present.join() === [...OPEN_COUNT_TRIGGERS].sort().join();

/** Creates the triggers afresh and recounts the tables unless (without `force`) they are current. */
async function install(sql: Sql, force: boolean): Promise<boolean> {
  // several servers may start at once on one PostgreSQL: one of them does it
  if (sql.dialect === "postgres") await sql.run(PG_LOCK);
  const present = await presentTriggers(sql);
  if (!force && current(present)) return false;
  for (const name of present) await sql.run(`DROP TRIGGER "${name}"${sql.dialect === "postgres" ? ' ON "Interruption"' : ""}`);
  if (sql.dialect === "postgres") for (const f of OLD_PG_FUNCTIONS) await sql.run(`DROP FUNCTION IF EXISTS ${f}()`);
  for (const statement of [...triggerSql(sql.dialect), ...recountSql()]) await sql.run(statement);
  await fold(sql);
  return true;
}

/**
 * Makes sure the triggers exist as defined here; when not (a new database, a migration rebuilt
 * the table, a definition changed), creates them and recounts the tables. True when it did.
 */
export async function ensureOpenCounts(db: Db): Promise<boolean> {
  if (current(await presentTriggers(readSql(db)))) return false;
  return transaction(db, (sql) => install(sql, false), 600_000);
}

/** Creates the triggers afresh and recounts the tables, in one transaction. */
export const rebuildOpenCounts = (db: Db): Promise<boolean> => transaction(db, (sql) => install(sql, true), 600_000);

/** Per session, the sum of the grouped changes in `from` (`"n"` per type and severity). */
function sessionTotals(from: string): string {
  const bySeverity = SEVERITIES.map((s) => `SUM(CASE WHEN "s" = '${s}' THEN "n" ELSE 0 END)`).join(", ");
  return `SELECT "k", SUM("n"), ${bySeverity}, COALESCE(MIN("first"), ${NO_FIRST}), COALESCE(MAX("last"), ${NO_LAST}), '' FROM ${from} WHERE true GROUP BY "k"`;
}

/** Adds the changes of `cells` (grouped, with "k", "t", "s", "n", "first", "last") to both tables. */
function applySql(dialect: Dialect, cells: string): string[] {
  const [least, greatest] = dialect === "postgres" ? ["LEAST", "GREATEST"] : ["MIN", "MAX"];
  const set = COUNTS.map((c) => `"${c}" = ${TABLE}."${c}" + excluded."${c}"`);
  return [
    `INSERT INTO ${CELLS} ("sessionId", "type", "severity", "count") SELECT "k", "t", "s", "n" FROM ${cells} WHERE true ORDER BY 1, 2, 3
      ON CONFLICT ("sessionId", "type", "severity") DO UPDATE SET "count" = ${CELLS}."count" + excluded."count"`,
    `INSERT INTO ${TABLE} ("sessionId", ${COUNTS.map((c) => `"${c}"`).join(", ")}, "firstNs", "lastNs", "entry") ${sessionTotals(cells)} ORDER BY 1
      ON CONFLICT ("sessionId") DO UPDATE SET ${set.join(", ")},
        "firstNs" = ${least}(${TABLE}."firstNs", excluded."firstNs"), "lastNs" = ${greatest}(${TABLE}."lastNs", excluded."lastNs")`,
  ];
}

/** After `applySql`: sessions and cells with nothing left go, the others' entries are rewritten. */
function tidySql(dialect: Dialect, touched: string): string[] {
  return [
    `DELETE FROM ${CELLS} WHERE "count" <= 0 AND "sessionId" IN (${touched})`,
    `DELETE FROM ${TABLE} WHERE "total" <= 0 AND "sessionId" IN (${touched})`,
    `UPDATE ${TABLE} SET "entry" = ${entryOf(dialect, `${TABLE}."sessionId"`)} WHERE "sessionId" IN (${touched})`,
  ];
}

const grouped = (from: string) =>
  `SELECT "sessionId" AS "k", "type" AS "t", "severity" AS "s", SUM("change") AS "n",
     MIN(CASE WHEN "change" > 0 THEN "occurredAtNs" END) AS "first", MAX(CASE WHEN "change" > 0 THEN "occurredAtNs" END) AS "last"
   FROM ${from} GROUP BY "sessionId", "type", "severity"`;

/** Moves the logged changes into the two tables, in the caller's transaction. */
async function fold(sql: Sql): Promise<void> {
  if (sql.dialect === "sqlite") {
    // the only writer while this transaction lasts: nothing is logged between reading and deleting
    const cells = `(${grouped(DELTAS)})`;
    for (const statement of [...applySql("sqlite", cells), ...tidySql("sqlite", `SELECT "sessionId" FROM ${DELTAS}`), `DELETE FROM ${DELTAS}`]) await sql.run(statement);
    return;
  }
  // one folder at a time; the changes it takes are exactly the ones it deletes (a change
  // committed after this statement began stays for the next fold)
  await sql.run(PG_LOCK);
  const [cells, totals] = applySql("postgres", '"c"');
  const touched = await sql.all(`WITH "d" AS (DELETE FROM ${DELTAS} RETURNING *), "c" AS (${grouped('"d"')}), "cells" AS (${cells}) ${totals} RETURNING "sessionId"`);
  if (!touched.length) return;
  const keys = JSON.stringify(touched.map((r) => String(r.sessionId)));
  for (const statement of tidySql("postgres", "SELECT json_array_elements_text(?::json)")) await sql.run(statement, [keys]);
}

/**
 * Folds the changes the triggers logged into SessionOpenCount and SessionOpenCell: every reader
 * of those tables calls it first. Nothing logged costs one read.
 */
export async function foldOpenCounts(db: Db): Promise<void> {
  if (!(await readSql(db).all(`SELECT 1 FROM ${DELTAS} LIMIT 1`)).length) return;
  await transaction(db, fold);
}

/** Plain SQL on a connection of its own (what the migration step holds; no Prisma client). */
function connectionSql(dialect: Dialect, query: (text: string, params: unknown[]) => Promise<{ rows: Row[]; changes: number }>): Sql {
  return {
    dialect,
    all: async (text, params = []) => (await query(text, params)).rows,
    run: async (text, params = []) => void (await query(text, params)),
    runEach: async (text, lists) => {
      const changed: number[] = [];
      for (const params of lists) changed.push((await query(text, params)).changes);
      return changed;
    },
  };
}

/** ensureOpenCounts on the migration's SQLite connection: a start with nothing to do costs one catalog read. */
export async function ensureOpenCountsSqlite(file: string): Promise<boolean> {
  const db = new BetterSqlite3(file, { fileMustExist: true, timeout: 10_000 });
  try {
    const sql = connectionSql("sqlite", async (text, params) => {
      const stmt = db.prepare(text);
      return stmt.reader ? { rows: stmt.all(...params) as Row[], changes: 0 } : { rows: [], changes: stmt.run(...params).changes };
    });
    if (current(await presentTriggers(sql))) return false;
    db.exec("BEGIN IMMEDIATE");
    try {
      const done = await install(sql, false);
      db.exec("COMMIT");
      return done;
    } catch (e) {
      db.exec("ROLLBACK");
      throw e;
    }
  } finally {
    db.close();
  }
}

/** ensureOpenCounts on the migration's PostgreSQL connection. */
export async function ensureOpenCountsPostgres(client: pg.Client): Promise<boolean> {
  const sql = connectionSql("postgres", async (text, params) => {
    const result = await client.query(toNumbered(text), params);
    return { rows: result.rows as Row[], changes: result.rowCount ?? 0 };
  });
  if (current(await presentTriggers(sql))) return false;
  await client.query("BEGIN");
  try {
    const done = await install(sql, false);
    await client.query("COMMIT");
    return done;
  } catch (e) {
    await client.query("ROLLBACK");
    throw e;
  }
}
