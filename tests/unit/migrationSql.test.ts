// PostgreSQL migrations build indexes on tables in use CONCURRENTLY, one per migration
// (lib/db/migrationSql.ts): the script's own split, and every committed migration since the rule.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { aloneIndexBuild, indexRuleBreaches, scriptSplitBreaches, splitOutIndexes, statementsOf } from "@/lib/db/migrationSql";
import { PRISMA_FILES } from "@/lib/db/schemaFiles";

/** The first migration written under the rule; those before built their indexes plainly. */
const RULE_SINCE = "20261204030827";

// as `prisma migrate diff --script` writes a change
const DIFF = `-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "staleCheckedNs" BIGINT;

-- CreateTable
CREATE TABLE "Lease" (
    "name" TEXT NOT NULL,
    CONSTRAINT "Lease_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "Lease_name_idx" ON "Lease"("name");

-- CreateIndex
CREATE INDEX "Turn_endReason_staleCheckedNs_idx" ON "Turn"("endReason", "staleCheckedNs");

-- CreateIndex
CREATE UNIQUE INDEX "Call_requestId_key" ON "Call"("requestId");
`;

describe("PostgreSQL index migrations", () => {
  it("reads a script's statements, comments and blank lines left out", () => {
    expect(statementsOf(DIFF)).toHaveLength(5);
    expect(statementsOf(DIFF)[1]).toMatch(/^CREATE TABLE "Lease" \(\n[\s\S]*\);$/);
  });

  it("moves indexes on tables in use out of the script, as CONCURRENTLY; those on a table it creates stay", () => {
    const { rest, indexes } = splitOutIndexes(DIFF);
    expect(indexes).toEqual([
      'CREATE INDEX CONCURRENTLY "Turn_endReason_staleCheckedNs_idx" ON "Turn"("endReason", "staleCheckedNs");',
      'CREATE UNIQUE INDEX CONCURRENTLY "Call_requestId_key" ON "Call"("requestId");',
    ]);
    expect(statementsOf(rest)).toEqual(statementsOf(DIFF).slice(0, 3));
    expect(indexRuleBreaches(rest)).toEqual([]);
    for (const index of indexes) expect(indexRuleBreaches(index)).toEqual([]);
    expect(splitOutIndexes('CREATE INDEX "A_b_idx" ON "A"("b");')).toEqual({ rest: "", indexes: ['CREATE INDEX CONCURRENTLY "A_b_idx" ON "A"("b");'] });
  });

  it("names the index of a migration that is nothing but its CONCURRENTLY build", () => {
    expect(aloneIndexBuild('-- CreateIndex\nCREATE INDEX CONCURRENTLY "Call_startNs_idx" ON "Call"("startNs");\n')).toBe("Call_startNs_idx");
    expect(aloneIndexBuild('CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "A_b_key" ON "A"("b");')).toBe("A_b_key");
    expect(aloneIndexBuild('CREATE INDEX "A_b_idx" ON "A"("b");')).toBeNull();
    expect(aloneIndexBuild(DIFF)).toBeNull();
  });

  it("names what breaks the rule", () => {
    expect(indexRuleBreaches(DIFF)).toEqual([
      'a plain CREATE INDEX on "Turn" (a table in use: build it CONCURRENTLY, in a migration of its own)',
      'a plain CREATE INDEX on "Call" (a table in use: build it CONCURRENTLY, in a migration of its own)',
    ]);
    expect(indexRuleBreaches('CREATE INDEX CONCURRENTLY "A_b_idx" ON "A"("b");\nCREATE INDEX CONCURRENTLY "A_c_idx" ON "A"("c");')).toHaveLength(2);
  });

  it("keeps a unique index a foreign key of the same script needs", () => {
    const withKey = `CREATE UNIQUE INDEX "Agent_name_key" ON "Agent"("name");\n\nALTER TABLE "Call" ADD CONSTRAINT "Call_agent_fkey" FOREIGN KEY ("agent") REFERENCES "Agent"("name") ON DELETE RESTRICT ON UPDATE CASCADE;\n`;
    expect(splitOutIndexes(withKey).indexes).toEqual([]);
  });

  it("finds a semicolon where the driver adapter would split a statement (it splits at every one)", () => {
    expect(scriptSplitBreaches(DIFF)).toEqual([]);
    expect(scriptSplitBreaches('-- CreateIndex (CONCURRENTLY; alone)\nCREATE INDEX CONCURRENTLY "A_b_idx" ON "A"("b");\n')).toEqual(['line 1: a ";" inside a comment (-- CreateIndex (CONCURRENTLY; alone))']);
    expect(scriptSplitBreaches("UPDATE \"A\" SET \"b\" = ';'; SELECT 1;")).toHaveLength(1);
  });

  it("every committed PostgreSQL migration splits where the adapter splits it", () => {
    const dir = PRISMA_FILES.postgresql.migrations;
    for (const name of fs.readdirSync(dir).filter((n) => /^\d{14}_/.test(n))) expect([name, scriptSplitBreaches(fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8"))]).toEqual([name, []]);
  });

  it("holds for every committed PostgreSQL migration since the rule", () => {
    const dir = PRISMA_FILES.postgresql.migrations;
    const since = fs.readdirSync(dir).filter((name) => /^\d{14}_/.test(name) && name >= RULE_SINCE);
    expect(since.length).toBeGreaterThanOrEqual(8);
    for (const name of since) expect([name, indexRuleBreaches(fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8"))]).toEqual([name, []]);
  });
});
