// Where a test lives says what it needs, and CI relies on it: tests/unit runs once (on SQLite),
// tests/db and tests/integration run again on PostgreSQL (.ci/run). A unit test that opened a
// database would silently never meet PostgreSQL, so none may: such a test belongs in tests/db.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, readRepoFile, REPO_ROOT } from "../support/repoFiles";

/**
 * What opens a database in a test: the test-database helpers, a server, a Prisma client (made,
 * or the process-wide one), a driver imported directly, the test database's URL.
 */
const OPENS_A_DATABASE =
  /support\/(testDb|database|server)\b|\bcreateDb\(|(?<![.\w])db\(\)|\bnew (Postgres)?PrismaClient\b|^import (?!type\b).*from ["'](better-sqlite3|pg)["']|TEST_DATABASE_URL/m;

const THIS_FILE = path.relative(REPO_ROOT, __filename); // names the pattern, opens nothing

const testsIn = (dir: string) => filesUnder(dir, (name) => name.endsWith(".test.ts")).filter((f) => f !== THIS_FILE);
const opensADatabase = (file: string) => OPENS_A_DATABASE.test(readRepoFile(file));

describe("test layout", () => {
  it("no test in tests/unit opens a database (move it to tests/db)", () => {
    expect(testsIn("tests/unit").filter(opensADatabase)).toEqual([]);
  });

  it("the pattern finds what tests/db opens", () => {
    const db = testsIn("tests/db");
    expect(db.length).toBeGreaterThan(0);
    expect(db.filter((f) => !opensADatabase(f))).toEqual([]);
  });
});
