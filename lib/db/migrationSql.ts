// PostgreSQL migrations that add an index to a table already in use build it CONCURRENTLY: a
// plain CREATE INDEX holds a SHARE lock that stops every write to the table until it is built
// (minutes on a big Call table), while the servers of a rolling upgrade go on ingesting. Each
// such index has a migration of its own: Prisma's engine (the "js" engine, through
// @prisma/adapter-pg) runs a migration's statements one by one, in no transaction, so a failed
// build leaves an INVALID index and a failed migration, and a migration that is nothing but
// that build can be undone and run again (lib/db/migrate.ts does so); and CONCURRENTLY cannot run
// where statements share a transaction (the native engine runs a file as one). Prisma's diff
// writes plain indexes; `npm run db:migration` moves them out with `splitOutIndexes`, and a unit
// test holds every migration since to the rule.
// The adapter splits a script at every `;`, comments included: one anywhere but at the end of a
// statement's line breaks the statement around it (`scriptSplitBreaches`).

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

/**
 * The statements of a script, each with the table it indexes without CONCURRENTLY (`blocking`),
 * unless the script creates that table first.
 */
function* indexWalk(statements: string[]): Generator<{ statement: string; blocking: string | null }> {
  const created = new Set<string>();
  for (const statement of statements) {
    const table = CREATE_TABLE.exec(statement)?.[1];
    if (table) created.add(table);
    const m = CREATE_INDEX.exec(statement);
    yield { statement, blocking: m && !m[2] && !created.has(m[4]) ? m[4] : null };
  }
}

/** The index a migration builds when it is nothing but one CREATE INDEX CONCURRENTLY, else null. */
export function aloneIndexBuild(sql: string): string | null {
  const statements = statementsOf(sql);
  const m = statements.length === 1 ? CREATE_INDEX.exec(statements[0]) : null;
  return m?.[2] ? (/^(?:IF NOT EXISTS )?"([^"]+)"/i.exec(m[3])?.[1] ?? null) : null;
}

/** Tables a statement names as the target of a foreign key. */
const referencedTables = (statement: string) => [...statement.matchAll(/\bREFERENCES\s+"([^"]+)"/gi)].map((m) => m[1]);

/**
 * Splits a PostgreSQL migration script: `rest` without the CREATE INDEX statements on tables the
 * script does not create, and those statements as `CREATE INDEX CONCURRENTLY`, one per migration.
 */
export function splitOutIndexes(sql: string): { rest: string; indexes: string[] } {
  const kept: string[] = [];
  const indexes: string[] = [];
  const statements = statementsOf(sql);
  // a unique index a foreign key of this script needs stays in it, before the key (plainly: the
  // unit test then asks for an order made by hand)
  const referenced = new Set(statements.flatMap(referencedTables));
  for (const { statement, blocking: moved } of indexWalk(statements)) {
    if (moved && !(CREATE_INDEX.exec(statement)?.[1] && referenced.has(moved))) indexes.push(statement.replace(CREATE_INDEX, (_, unique = "", __, tail) => `CREATE ${unique}INDEX CONCURRENTLY ${tail}`));
    else kept.push(statement);
  }
  return { rest: kept.length ? kept.join("\n\n") + "\n" : "", indexes };
}

/** What in a PostgreSQL migration script breaks the rule (empty when nothing does). */
export function indexRuleBreaches(sql: string): string[] {
  const statements = statementsOf(sql);
  const breaches: string[] = [];
  for (const { statement, blocking } of indexWalk(statements)) {
    if (blocking) breaches.push(`a plain CREATE INDEX on "${blocking}" (a table in use: build it CONCURRENTLY, in a migration of its own)`);
    if (/\bCONCURRENTLY\b/i.test(statement) && statements.length > 1) breaches.push("CONCURRENTLY beside other statements (a failed build could not be undone and retried alone)");
  }
  return breaches;
}

/** Lines where a `;` is not the end of a statement's line (in a comment, or mid-line): the adapter would split there. */
export function scriptSplitBreaches(sql: string): string[] {
  return sql
    .split("\n")
    .map((line, i) => ({ code: line.trim(), n: i + 1 }))
    .filter(({ code }) => code.slice(0, -1).includes(";") || (code.startsWith("--") && code.includes(";")))
    .map(({ code, n }) => `line ${n}: a ";" inside ${code.startsWith("--") ? "a comment" : "the line"} (${code})`);
}
