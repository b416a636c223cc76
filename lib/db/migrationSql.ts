// PostgreSQL migrations that add an index to a table already in use build it CONCURRENTLY: a
// plain CREATE INDEX holds a SHARE lock that stops every write to the table until it is built
// (minutes on a big Call table), while the servers of a rolling upgrade go on ingesting.
// CONCURRENTLY cannot run inside a transaction, and a migration file of several statements runs
// as one: each such index goes in a migration of its own. Prisma's diff writes plain indexes;
// `npm run db:migration` moves them out with `splitOutIndexes`, and a unit test holds every
// migration since to the rule.

/** The statements of a migration script (`;` at a line's end closes one), comments and blank lines dropped. */
export function statementsOf(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of sql.split("\n")) {
    const code = line.trim();
    if (!code || code.startsWith("--")) continue;
    current.push(line);
    if (code.endsWith(";")) {
      statements.push(current.join("\n"));
      current = [];
    }
  }
  if (current.length) statements.push(current.join("\n"));
  return statements;
}

const CREATE_TABLE = /^\s*CREATE TABLE (?:IF NOT EXISTS )?"([^"]+)"/i;
const CREATE_INDEX = /^\s*CREATE (UNIQUE )?INDEX (CONCURRENTLY )?(.*? ON "([^"]+)"[\s\S]*)$/i;

/** The table a statement indexes without CONCURRENTLY, unless it creates that table first in the same script. */
function blockingIndexTable(statement: string, created: Set<string>): string | null {
  const m = CREATE_INDEX.exec(statement);
  return m && !m[2] && !created.has(m[4]) ? m[4] : null;
}

/**
 * Splits a PostgreSQL migration script: `rest` without the CREATE INDEX statements on tables the
 * script does not create, and those statements as `CREATE INDEX CONCURRENTLY`, one per migration.
 */
export function splitOutIndexes(sql: string): { rest: string; indexes: string[] } {
  const created = new Set<string>();
  const kept: string[] = [];
  const indexes: string[] = [];
  for (const statement of statementsOf(sql)) {
    const table = CREATE_TABLE.exec(statement)?.[1];
    if (table) created.add(table);
    if (blockingIndexTable(statement, created)) indexes.push(statement.replace(CREATE_INDEX, (_, unique = "", __, tail) => `CREATE ${unique}INDEX CONCURRENTLY ${tail}`));
    else kept.push(statement);
  }
  return { rest: kept.length ? kept.join("\n\n") + "\n" : "", indexes };
}

/** What in a PostgreSQL migration script breaks the rule (empty when nothing does). */
export function indexRuleBreaches(sql: string): string[] {
  const statements = statementsOf(sql);
  const breaches: string[] = [];
  const created = new Set<string>();
  for (const statement of statements) {
    const table = CREATE_TABLE.exec(statement)?.[1];
    if (table) created.add(table);
    const blocking = blockingIndexTable(statement, created);
    if (blocking) breaches.push(`a plain CREATE INDEX on "${blocking}" (a table in use: build it CONCURRENTLY, in a migration of its own)`);
    if (/\bCONCURRENTLY\b/i.test(statement) && statements.length > 1) breaches.push("CONCURRENTLY beside other statements (they run as one transaction, which it cannot run in)");
  }
  return breaches;
}
