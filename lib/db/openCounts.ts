// SessionOpenCount and SessionOpenCell: unresolved interruptions per session (and per session,
// type and severity), kept by triggers on Interruption. Triggers, not application code, so that
// every write path — ingest, triage, bulk actions, sweeps, the AgentSight import, a hand-written
// UPDATE — keeps them exact. They live here rather than in a migration because a later
// migration that rebuilds the Interruption table on SQLite (Prisma's way to change a column)
// drops them: every start checks that they are all there, as defined here, and otherwise
// creates them and recounts both tables (`ensureOpenCounts`). Changing a trigger's definition
// means giving it a new name, so that existing databases pick up the new one.
//
// A bulk insert (the AgentSight import) on SQLite counts what it inserted in three set-based
// statements instead (`insertCountedInBulk`): the insert trigger — its per-row work, and even
// when it does nothing its mere presence — cost a third of the import's time.
import { SEVERITIES, UNASSIGNED, UNRESOLVED_STATUSES } from "../domain/interruptions";
import BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import type { Db } from "./client";
import { sessionCountJson, typeCountJson, typeCountsJson } from "./jsonSql";
import { lastRowid } from "./multiRow";
import { readSql, toNumbered, transaction, type Dialect, type Row, type Sql } from "./sql";

const TABLE = '"SessionOpenCount"';
const CELLS = '"SessionOpenCell"';
const COUNTS = ["total", ...SEVERITIES] as const;
export const OPEN_COUNT_TRIGGERS = ["Interruption_open_counts_insert_v1", "Interruption_open_counts_delete_v1", "Interruption_open_counts_update_v1"] as const;
const TRIGGER_PREFIX = "Interruption_open_counts_";
const PG_FUNCTION = '"interruption_open_counts_v1"';
/** The columns whose change moves an interruption between counts. */
const COUNTED = ["status", "severity", "type", "sessionId", "occurredAtNs"];

const isOpen = (row: string) => `${row}."status" IN (${UNRESOLVED_STATUSES.map((s) => `'${s}'`).join(", ")})`;
const keyOf = (row: string) => `COALESCE(${row}."sessionId", '${UNASSIGNED}')`;

/** 1 when `row` has severity `s`, else 0. */
const severityFlag = (dialect: Dialect, row: string, s: string) =>
  dialect === "postgres" ? `(${row}."severity" = '${s}')::int` : `(${row}."severity" = '${s}')`;

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

/** Counts `row` in, when `when` holds. */
function addSql(dialect: Dialect, row: string, when: string): string[] {
  const [least, greatest] = dialect === "postgres" ? ["LEAST", "GREATEST"] : ["MIN", "MAX"];
  const flags = SEVERITIES.map((s) => severityFlag(dialect, row, s));
  const set = COUNTS.map((c) => `"${c}" = ${TABLE}."${c}" + excluded."${c}"`);
  return [
    `INSERT INTO ${CELLS} ("sessionId", "type", "severity", "count") SELECT ${keyOf(row)}, ${row}."type", ${row}."severity", 1 WHERE ${when}
      ON CONFLICT ("sessionId", "type", "severity") DO UPDATE SET "count" = ${CELLS}."count" + 1`,
    `INSERT INTO ${TABLE} ("sessionId", ${COUNTS.map((c) => `"${c}"`).join(", ")}, "firstNs", "lastNs", "entry")
      SELECT ${keyOf(row)}, 1, ${flags.join(", ")}, ${row}."occurredAtNs", ${row}."occurredAtNs", '' WHERE ${when}
      ON CONFLICT ("sessionId") DO UPDATE SET ${set.join(", ")},
        "firstNs" = ${least}(${TABLE}."firstNs", excluded."firstNs"), "lastNs" = ${greatest}(${TABLE}."lastNs", excluded."lastNs")`,
    `UPDATE ${TABLE} SET "entry" = ${entryOf(dialect, keyOf(row))} WHERE "sessionId" = ${keyOf(row)} AND ${when}`,
  ];
}

/** Counts `row` out, when `when` holds; a session (or cell) with nothing left goes. */
function removeSql(dialect: Dialect, row: string, when: string): string[] {
  const cell = `"sessionId" = ${keyOf(row)} AND "type" = ${row}."type" AND "severity" = ${row}."severity"`;
  const set = [`"total" = "total" - 1`, ...SEVERITIES.map((s) => `"${s}" = "${s}" - ${severityFlag(dialect, row, s)}`)];
  return [
    `UPDATE ${CELLS} SET "count" = "count" - 1 WHERE ${cell} AND ${when}`,
    `DELETE FROM ${CELLS} WHERE ${cell} AND "count" <= 0`,
    `UPDATE ${TABLE} SET ${set.join(", ")} WHERE "sessionId" = ${keyOf(row)} AND ${when}`,
    `DELETE FROM ${TABLE} WHERE "sessionId" = ${keyOf(row)} AND "total" <= 0`,
    `UPDATE ${TABLE} SET "entry" = ${entryOf(dialect, keyOf(row))} WHERE "sessionId" = ${keyOf(row)} AND ${when}`,
  ];
}

/** The statements that create the triggers (and, on PostgreSQL, their function). */
export function triggerSql(dialect: Dialect): string[] {
  const [insert, del, update] = OPEN_COUNT_TRIGGERS;
  const columns = COUNTED.map((c) => `"${c}"`).join(", ");
  const body = (statements: string[]) => statements.map((s) => `${s};`).join("\n");
  if (dialect === "sqlite") {
    return [
      `CREATE TRIGGER "${insert}" AFTER INSERT ON "Interruption" WHEN ${isOpen("NEW")} BEGIN ${body(addSql(dialect, "NEW", "1"))} END`,
      `CREATE TRIGGER "${del}" AFTER DELETE ON "Interruption" WHEN ${isOpen("OLD")} BEGIN ${body(removeSql(dialect, "OLD", "1"))} END`,
      `CREATE TRIGGER "${update}" AFTER UPDATE OF ${columns} ON "Interruption" WHEN ${isOpen("OLD")} OR ${isOpen("NEW")}
        BEGIN ${body([...removeSql(dialect, "OLD", isOpen("OLD")), ...addSql(dialect, "NEW", isOpen("NEW"))])} END`,
    ];
  }
  return [
    `CREATE OR REPLACE FUNCTION ${PG_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP <> 'INSERT' AND ${isOpen("OLD")} THEN ${body(removeSql(dialect, "OLD", "true"))} END IF;
       IF TG_OP <> 'DELETE' AND ${isOpen("NEW")} THEN ${body(addSql(dialect, "NEW", "true"))} END IF;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER "${insert}" AFTER INSERT ON "Interruption" FOR EACH ROW WHEN (${isOpen("NEW")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
    `CREATE TRIGGER "${del}" AFTER DELETE ON "Interruption" FOR EACH ROW WHEN (${isOpen("OLD")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
    `CREATE TRIGGER "${update}" AFTER UPDATE OF ${columns} ON "Interruption" FOR EACH ROW WHEN (${isOpen("OLD")} OR ${isOpen("NEW")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
  ];
}

/** Both tables recounted from Interruption. */
function recountSql(dialect: Dialect): string[] {
  const i = '"Interruption"';
  const sums = SEVERITIES.map((s) => `SUM(${severityFlag(dialect, i, s)})`).join(", ");
  return [
    `DELETE FROM ${CELLS}`,
    `DELETE FROM ${TABLE}`,
    `INSERT INTO ${CELLS} ("sessionId", "type", "severity", "count")
      SELECT ${keyOf(i)}, "type", "severity", COUNT(*) FROM ${i} WHERE ${isOpen(i)} GROUP BY ${keyOf(i)}, "type", "severity"`,
    `INSERT INTO ${TABLE} ("sessionId", ${COUNTS.map((c) => `"${c}"`).join(", ")}, "firstNs", "lastNs", "entry")
      SELECT ${keyOf(i)}, COUNT(*), ${sums}, MIN("occurredAtNs"), MAX("occurredAtNs"), '' FROM ${i} WHERE ${isOpen(i)} GROUP BY ${keyOf(i)}`,
    `UPDATE ${TABLE} SET "entry" = ${entryOf(dialect, `${TABLE}."sessionId"`)}`,
  ];
}

/**
 * SQLite: adds the unresolved rows of Interruption with a rowid above `?` to both tables, as the
 * insert trigger would have one by one: cells and counts grow, bounds widen, and each session's
 * entry is rewritten (once, not once per row).
 */
function addInsertedSql(): string[] {
  const i = '"Interruption"';
  const inserted = `${i}.rowid > ? AND ${isOpen(i)}`;
  const sums = SEVERITIES.map((s) => `SUM(${severityFlag("sqlite", i, s)})`).join(", ");
  return [
    `INSERT INTO ${CELLS} ("sessionId", "type", "severity", "count")
      SELECT ${keyOf(i)}, "type", "severity", COUNT(*) FROM ${i} WHERE ${inserted} GROUP BY ${keyOf(i)}, "type", "severity"
      ON CONFLICT ("sessionId", "type", "severity") DO UPDATE SET "count" = ${CELLS}."count" + excluded."count"`,
    `INSERT INTO ${TABLE} ("sessionId", ${COUNTS.map((c) => `"${c}"`).join(", ")}, "firstNs", "lastNs", "entry")
      SELECT ${keyOf(i)}, COUNT(*), ${sums}, MIN("occurredAtNs"), MAX("occurredAtNs"), '' FROM ${i} WHERE ${inserted} GROUP BY ${keyOf(i)}
      ON CONFLICT ("sessionId") DO UPDATE SET ${COUNTS.map((c) => `"${c}" = ${TABLE}."${c}" + excluded."${c}"`).join(", ")},
        "firstNs" = MIN(${TABLE}."firstNs", excluded."firstNs"), "lastNs" = MAX(${TABLE}."lastNs", excluded."lastNs")`,
    `UPDATE ${TABLE} SET "entry" = ${entryOf("sqlite", `${TABLE}."sessionId"`)} WHERE "sessionId" IN (SELECT ${keyOf(i)} FROM ${i} WHERE ${inserted})`,
  ];
}

/**
 * Runs `insert` in the caller's transaction and counts the unresolved interruptions it inserted.
 * `insert` may only INSERT into Interruption.
 *
 * On SQLite the insert trigger is dropped for the while and created again, as it was, before
 * `insertCountedInBulk` returns; the rows are then added in three set-based statements, with the
 * trigger's result. A trigger that does nothing still costs: with one on the table, SQLite
 * journals every page each one-row INSERT touches (a statement journal, in case a trigger
 * statement fails halfway), which doubled the cost of the import's inserts. Dropping it is
 * safe within the transaction: schema changes are transactional in SQLite, no other connection
 * sees the table without it (readers see the last commit, writers wait), and a failure rolls
 * the drop back with the rest. The rows inserted are those with a rowid above the largest
 * before (`lastRowid`).
 *
 * On PostgreSQL, where other writers run at the same time, the trigger counts each row as usual:
 * its increments commute with theirs, where a count of the page's sessions could race with them.
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
  for (const statement of addInsertedSql()) await sql.run(statement, [last]);
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
  if (sql.dialect === "postgres") await sql.run("SELECT pg_advisory_xact_lock(hashtextextended('sightdesk.openCounts', 0))");
  const present = await presentTriggers(sql);
  if (!force && current(present)) return false;
  for (const name of present) await sql.run(`DROP TRIGGER "${name}"${sql.dialect === "postgres" ? ' ON "Interruption"' : ""}`);
  for (const statement of [...triggerSql(sql.dialect), ...recountSql(sql.dialect)]) await sql.run(statement);
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
