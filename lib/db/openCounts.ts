// SessionOpenCount: unresolved interruptions per session, kept by triggers on Interruption.
// Triggers, not application code, so that every write path — ingest, triage, bulk actions,
// sweeps, the AgentSight import, a hand-written UPDATE — keeps the counts exact. They live here
// rather than in a migration because a later migration that rebuilds the Interruption table on
// SQLite (Prisma's way to change a column) drops them: every start checks that they are there
// and, when one is missing, creates them and recounts the table (`ensureOpenCounts`).
import { SEVERITIES, UNASSIGNED, UNRESOLVED_STATUSES } from "../domain/interruptions";
import type { Db } from "./client";
import { dialectOf, readSql, transaction, type Dialect, type Sql } from "./sql";

const TABLE = '"SessionOpenCount"';
const COLUMNS = ["total", ...SEVERITIES] as const;
export const OPEN_COUNT_TRIGGERS = ["Interruption_open_count_insert", "Interruption_open_count_delete", "Interruption_open_count_update"] as const;
const PG_FUNCTION = '"interruption_open_count"';

const isOpen = (row: string) => `${row}."status" IN (${UNRESOLVED_STATUSES.map((s) => `'${s}'`).join(", ")})`;
const keyOf = (row: string) => `COALESCE(${row}."sessionId", '${UNASSIGNED}')`;

/** 1 when `row` has severity `s`, else 0. */
function severityFlag(dialect: Dialect, row: string, s: string): string {
  return dialect === "postgres" ? `(${row}."severity" = '${s}')::int` : `(${row}."severity" = '${s}')`;
}

/** Counts `row` in (statement to run when it is unresolved). */
function addSql(dialect: Dialect, row: string, when: string): string {
  const values = [`${keyOf(row)}`, "1", ...SEVERITIES.map((s) => severityFlag(dialect, row, s))];
  const set = COLUMNS.map((c) => `"${c}" = ${TABLE}."${c}" + excluded."${c}"`).join(", ");
  return `INSERT INTO ${TABLE} ("sessionId", ${COLUMNS.map((c) => `"${c}"`).join(", ")}) SELECT ${values.join(", ")} WHERE ${when}
    ON CONFLICT ("sessionId") DO UPDATE SET ${set}`;
}

/** Counts `row` out, and drops its session's row once nothing there is unresolved. */
function removeSql(dialect: Dialect, row: string, when: string): string[] {
  const set = [`"total" = "total" - 1`, ...SEVERITIES.map((s) => `"${s}" = "${s}" - ${severityFlag(dialect, row, s)}`)].join(", ");
  return [
    `UPDATE ${TABLE} SET ${set} WHERE "sessionId" = ${keyOf(row)} AND ${when}`,
    `DELETE FROM ${TABLE} WHERE "sessionId" = ${keyOf(row)} AND "total" <= 0`,
  ];
}

/** The statements that create the triggers (and, on PostgreSQL, their function). */
export function triggerSql(dialect: Dialect): string[] {
  const [insert, del, update] = OPEN_COUNT_TRIGGERS;
  const changed = `"status", "severity", "sessionId"`;
  if (dialect === "sqlite") {
    return [
      `CREATE TRIGGER "${insert}" AFTER INSERT ON "Interruption" WHEN ${isOpen("NEW")} BEGIN ${addSql(dialect, "NEW", "1")}; END`,
      `CREATE TRIGGER "${del}" AFTER DELETE ON "Interruption" WHEN ${isOpen("OLD")} BEGIN ${removeSql(dialect, "OLD", "1").join("; ")}; END`,
      `CREATE TRIGGER "${update}" AFTER UPDATE OF ${changed} ON "Interruption" WHEN ${isOpen("OLD")} OR ${isOpen("NEW")} BEGIN
        ${removeSql(dialect, "OLD", isOpen("OLD")).join("; ")}; ${addSql(dialect, "NEW", isOpen("NEW"))}; END`,
    ];
  }
  return [
    `CREATE OR REPLACE FUNCTION ${PG_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP <> 'INSERT' AND ${isOpen("OLD")} THEN ${removeSql(dialect, "OLD", "true").join("; ")}; END IF;
       IF TG_OP <> 'DELETE' AND ${isOpen("NEW")} THEN ${addSql(dialect, "NEW", "true")}; END IF;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER "${insert}" AFTER INSERT ON "Interruption" FOR EACH ROW WHEN (${isOpen("NEW")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
    `CREATE TRIGGER "${del}" AFTER DELETE ON "Interruption" FOR EACH ROW WHEN (${isOpen("OLD")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
    `CREATE TRIGGER "${update}" AFTER UPDATE OF ${changed} ON "Interruption" FOR EACH ROW WHEN (${isOpen("OLD")} OR ${isOpen("NEW")}) EXECUTE FUNCTION ${PG_FUNCTION}()`,
  ];
}

/** The counts as they should be, recounted from Interruption (for a rebuild, and for tests). */
export function recountSql(dialect: Dialect): string {
  const sums = SEVERITIES.map((s) => `SUM(${severityFlag(dialect, '"Interruption"', s)})`).join(", ");
  return `SELECT ${keyOf('"Interruption"')} AS "sessionId", COUNT(*) AS "total", ${sums}
    FROM "Interruption" WHERE ${isOpen('"Interruption"')} GROUP BY ${keyOf('"Interruption"')}`;
}

async function presentTriggers(sql: Sql): Promise<string[]> {
  const names = OPEN_COUNT_TRIGGERS.map((n) => `'${n}'`).join(", ");
  const rows =
    sql.dialect === "postgres"
      ? await sql.all(`SELECT "tgname"::text AS "name" FROM pg_trigger WHERE NOT "tgisinternal" AND "tgname" IN (${names})`)
      : await sql.all(`SELECT "name" FROM sqlite_master WHERE "type" = 'trigger' AND "name" IN (${names})`);
  return rows.map((r) => String(r.name));
}

/**
 * Makes sure the triggers exist; when one was missing (a new database, or a migration rebuilt
 * the table), creates them all and recounts the table from Interruption. True when it did.
 */
export async function ensureOpenCounts(db: Db): Promise<boolean> {
  if ((await presentTriggers(readSql(db))).length === OPEN_COUNT_TRIGGERS.length) return false;
  return rebuildOpenCounts(db, false);
}

/** Creates the triggers afresh and recounts the table, in one transaction. */
export async function rebuildOpenCounts(db: Db, force = true): Promise<boolean> {
  const dialect = dialectOf(db);
  return transaction(db, async (sql) => {
    // several servers may start at once on one PostgreSQL: one of them does it
    if (dialect === "postgres") await sql.run("SELECT pg_advisory_xact_lock(hashtextextended('sightdesk.openCounts', 0))");
    const present = await presentTriggers(sql);
    if (!force && present.length === OPEN_COUNT_TRIGGERS.length) return false;
    for (const name of present) await sql.run(`DROP TRIGGER "${name}"${dialect === "postgres" ? ' ON "Interruption"' : ""}`);
    for (const statement of triggerSql(dialect)) await sql.run(statement);
    await sql.run(`DELETE FROM ${TABLE}`);
    await sql.run(`INSERT INTO ${TABLE} ("sessionId", ${COLUMNS.map((c) => `"${c}"`).join(", ")}) ${recountSql(dialect)}`);
    return true;
  }, 600_000);
}
