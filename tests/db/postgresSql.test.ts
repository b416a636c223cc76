// Statements sent to PostgreSQL in few round trips (lib/db/postgresSql.ts): values written into
// the SQL text as literals must mean exactly what the same values sent as parameters mean; a run
// waits for the next read and still happens first; reads issued together share a round trip; a
// failed statement fails the transaction, nothing of it is kept. The round trips need
// TEST_DATABASE_URL; the literals need nothing.
import { describe, expect, it } from "vitest";
import { inlined, literal } from "@/lib/db/postgresSql";
import { sqlTransaction, readSql } from "@/lib/db/sql";
import { testPostgresUrl } from "../support/database";
import { useTestDb } from "../support/testDb";

describe("literal", () => {
  it("quotes text, doubling quotes and (with E'') backslashes", () => {
    expect(literal("it's")).toBe("'it''s'");
    expect(literal("a\\b'")).toBe("E'a\\\\b'''");
    expect(literal("")).toBe("''");
  });

  it("writes numbers, bigints and booleans as pg sends them, null and undefined as NULL", () => {
    expect(literal(42)).toBe("'42'");
    expect(literal(1234567890123456789n)).toBe("'1234567890123456789'");
    expect(literal(true)).toBe("'true'");
    expect(literal(null)).toBe("NULL");
    expect(literal(undefined)).toBe("NULL");
    expect(literal(Buffer.from([1, 255]))).toBe("'\\x01ff'");
  });

  it("stores U+0000 as U+FFFD (PostgreSQL text cannot hold it) and refuses objects", () => {
    expect(literal("a\u0000b")).toBe("'a\uFFFDb'");
    expect(() => literal({ a: 1 })).toThrow(TypeError);
  });

  it("fills each placeholder in order and checks their number", () => {
    expect(inlined(`SELECT * FROM "T" WHERE "a" = ? AND "b" IN (?, ?)`, ["x", 1, null])).toBe(`SELECT * FROM "T" WHERE "a" = 'x' AND "b" IN ('1', NULL)`);
    expect(() => inlined("SELECT ?", [])).toThrow(/1 placeholders for 0 values/);
  });
});

describe.runIf(testPostgresUrl())("round trips on PostgreSQL", () => {
  const db = useTestDb("pgsql");
  const table = `"RoundTrip"`;

  it("keeps every value exact, and a run before a read happens first", async () => {
    await readSql(db()).run(`CREATE TABLE ${table} ("id" text PRIMARY KEY, "n" bigint, "ok" boolean, "body" text)`);
    const values = ["plain", "quote ' and \\ backslash", "\\x41 not bytes", "emoji 🙂 and \u2028", "nul \u0000 here", "%s $1 ? :name"];
    const rows = await sqlTransaction(db(), async (sql) => {
      for (const [i, body] of values.entries()) await sql.run(`INSERT INTO ${table} ("id", "n", "ok", "body") VALUES (?, ?, ?, ?)`, [`r${i}`, 9223372036854775807n - BigInt(i), i % 2 === 0, body]);
      return sql.all(`SELECT * FROM ${table} ORDER BY "id"`);
    });
    expect(rows.map((r) => r.body)).toEqual(values.map((v) => v.replace("\u0000", "\uFFFD")));
    expect(rows.map((r) => r.n)).toEqual(values.map((_, i) => 9223372036854775807n - BigInt(i)));
    expect(rows.map((r) => r.ok)).toEqual(values.map((_, i) => i % 2 === 0));
  });

  it("answers reads issued together each with its own rows", async () => {
    const [a, b, counts] = await sqlTransaction(db(), (sql) =>
      Promise.all([sql.all(`SELECT "id" FROM ${table} WHERE "id" = ?`, ["r0"]), sql.all(`SELECT "id" FROM ${table} WHERE "id" = ?`, ["r1"]), sql.runEach(`UPDATE ${table} SET "ok" = ? WHERE "id" = ?`, [[true, "r1"], [true, "nope"]])]),
    );
    expect(a).toEqual([{ id: "r0" }]);
    expect(b).toEqual([{ id: "r1" }]);
    expect(counts).toEqual([1, 0]);
  });

  it("fails the transaction at a failed run, keeping none of its writes", async () => {
    const attempt = sqlTransaction(db(), async (sql) => {
      await sql.run(`INSERT INTO ${table} ("id", "n") VALUES (?, ?)`, ["new-row", 1]);
      await sql.run(`INSERT INTO ${table} ("id", "n") VALUES (?, ?)`, ["r0", 1]); // duplicate key
      await sql.run(`INSERT INTO ${table} ("id", "n") VALUES (?, ?)`, ["after", 1]);
    });
    await expect(attempt).rejects.toThrow(/duplicate key/);
    const left = await readSql(db()).all(`SELECT "id" FROM ${table} WHERE "id" IN ('new-row', 'after')`);
    expect(left).toEqual([]);
    // a failed batch sent for its size, with nobody reading it: the commit after it fails too
    const large = sqlTransaction(db(), async (sql) => {
      await sql.run(`INSERT INTO ${table} ("id", "n") VALUES (?, ?)`, ["new-row", 1]);
      await sql.run(`INSERT INTO ${table} ("id", "body") VALUES (?, ?)`, ["r0", "x".repeat(5 * 1024 * 1024)]); // duplicate key
    });
    await expect(large).rejects.toThrow(/duplicate key/);
    expect(await readSql(db()).all(`SELECT "id" FROM ${table} WHERE "id" = 'new-row'`)).toEqual([]);
    // the connection went back to the pool usable
    expect(await sqlTransaction(db(), (sql) => sql.all(`SELECT COUNT(*) AS "n" FROM ${table}`))).toEqual([{ n: 6n }]);
  });
});
