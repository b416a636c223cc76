// Where a test lives says what it needs, and CI relies on it: tests/unit runs once (on SQLite),
// tests/db and tests/integration run again on PostgreSQL (.ci/run). A unit test that opened a
// database would silently never meet PostgreSQL, so none may: such a test belongs in tests/db.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
/** What opens a database in a test: the test-database helpers, a server, a client, its URL. */
const OPENS_A_DATABASE = /support\/(testDb|database|server)\b|\bcreateDb\(|TEST_DATABASE_URL/;

const THIS_FILE = path.relative(ROOT, __filename); // names the pattern, opens nothing

const testsIn = (dir: string) =>
  fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".test.ts")).map((f) => path.join(dir, f)).filter((f) => f !== THIS_FILE);

describe("test layout", () => {
  it("no test in tests/unit opens a database (move it to tests/db)", () => {
    const misplaced = testsIn("tests/unit").filter((f) => OPENS_A_DATABASE.test(fs.readFileSync(path.join(ROOT, f), "utf8")));
    expect(misplaced).toEqual([]);
  });

  it("the pattern finds what tests/db opens", () => {
    const db = testsIn("tests/db");
    expect(db.length).toBeGreaterThan(0);
    expect(db.filter((f) => !OPENS_A_DATABASE.test(fs.readFileSync(path.join(ROOT, f), "utf8")))).toEqual([]);
  });
});
