// A SQLite transaction of SightDesk beside another process's writer (`sightdesk import` while the
// server runs, or the server while an import runs): it waits for the other's commit instead of
// failing at its first write ("database is locked": a transaction that has read cannot take the
// write lock once another connection committed, and SQLite does not wait for it then).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { transaction } from "@/lib/db/sql";
import { testPostgresUrl } from "../support/database";
import { useTestDb } from "../support/testDb";

const db = useTestDb("sqlite-write-lock");

/** Another process holding the write lock (a row written, not committed) until it commits after `ms`. */
function otherWriter(file: string, ms: number): { locked: Promise<void>; done: Promise<number | null> } {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(process.argv[1]);
    db.exec("BEGIN IMMEDIATE");
    db.prepare('INSERT INTO "Setting" ("key", "value") VALUES (?, ?)').run("other-writer", "1");
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ["-e", script, file, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  const locked = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  const done = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { locked, done };
}

describe.runIf(!testPostgresUrl())("a transaction beside another process's writer (SQLite)", () => {
  it("reads, then writes once the other commits", async () => {
    const [{ file }] = await db().$queryRawUnsafe<{ file: string }[]>("PRAGMA database_list");
    const other = otherWriter(file, 500);
    await other.locked;
    await transaction(db(), async (sql) => {
      await sql.all(`SELECT COUNT(*) AS "n" FROM "Setting"`);
      await sql.run(`INSERT INTO "Setting" ("key", "value") VALUES ('ours', '1')`);
    });
    expect(await other.done).toBe(0);
    expect((await db().setting.findMany({ where: { key: { in: ["ours", "other-writer"] } } })).length).toBe(2);
  });
});
