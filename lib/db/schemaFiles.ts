// One source of model definitions (prisma/schema.prisma, SQLite) and a PostgreSQL schema derived
// from it: one generated client and one migration folder per provider (STACK.md: a Prisma client
// serves one provider only).
import fs from "node:fs";
import path from "node:path";
import type { Provider } from "./url";

export const PRISMA_FILES: Record<Provider, { schema: string; migrations: string }> = {
  sqlite: { schema: "prisma/schema.prisma", migrations: "prisma/migrations" },
  postgresql: { schema: "prisma/postgres/schema.prisma", migrations: "prisma/migrations-pg" },
};

const HEADER = "// GENERATED from prisma/schema.prisma by lib/db/schemaFiles.ts: edit that file, not this one.\n";

/**
 * The PostgreSQL variant of the SQLite schema: another provider and client folder, the same models,
 * with 64-bit autoincrement ids.
 */
export function derivePostgresSchema(source: string): string {
  let out = source;
  const swap = (from: RegExp, to: string) => {
    if (!from.test(out)) throw new Error(`prisma/schema.prisma: expected ${from} to derive the PostgreSQL schema`);
    out = out.replace(from, to);
  };
  swap(/(datasource\s+db\s*\{[^}]*provider\s*=\s*)"sqlite"/, '$1"postgresql"');
  swap(/(generator\s+client\s*\{[^}]*output\s*=\s*)"\.\.\/lib\/db\/generated"/, '$1"../../lib/db/generated-pg"');
  // An autoincrement id only grows (a deleted row does not give its id back): PostgreSQL's Int is
  // 32-bit. SQLite's INTEGER PRIMARY KEY is 64-bit already, and Prisma's BigInt there would not be
  // one (a BIGINT key is no rowid and cannot autoincrement).
  out = out.replace(/\bInt(\s+@id\s+@default\(autoincrement\(\)\))/g, "BigInt$1");
  return HEADER + out;
}

/** Writes the derived PostgreSQL schema (when it changed) and returns its path. */
export function writePostgresSchema(root = process.cwd()): string {
  const target = path.join(root, PRISMA_FILES.postgresql.schema);
  const text = derivePostgresSchema(fs.readFileSync(path.join(root, PRISMA_FILES.sqlite.schema), "utf8"));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== text) fs.writeFileSync(target, text);
  return target;
}
