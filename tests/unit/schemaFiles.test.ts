// The PostgreSQL schema is derived from the one source of model definitions.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { derivePostgresSchema } from "@/lib/db/schemaFiles";

const source = fs.readFileSync("prisma/schema.prisma", "utf8");
const blocks = (schema: string) => schema.match(/^(model|enum) \w+ \{[^}]*\}/gm) ?? [];

describe("derivePostgresSchema", () => {
  it("changes the provider and the client folder, and of the models only the width of autoincrement ids", () => {
    const derived = derivePostgresSchema(source);
    expect(derived).toMatch(/datasource db \{[^}]*provider = "postgresql"/);
    expect(derived).toMatch(/output\s+= "\.\.\/\.\.\/lib\/db\/generated-pg"/);
    expect(derived).not.toContain('"sqlite"');
    const widened = (schema: string) => schema.replace(/\bInt(\s+@id\s+@default\(autoincrement\(\)\))/g, "BigInt$1");
    expect(blocks(derived)).toEqual(blocks(widened(source)));
    expect(blocks(source).length).toBeGreaterThan(10);
  });

  it("makes autoincrement ids 64-bit on PostgreSQL (32-bit ones run out), leaving SQLite's rowid keys as they are", () => {
    const activity = (schema: string) => schema.match(/^model InterruptionActivity \{[^}]*\}/m)?.[0] ?? "";
    expect(activity(source)).toMatch(/^\s+id\s+Int\s+@id @default\(autoincrement\(\)\)/m);
    expect(activity(derivePostgresSchema(source))).toMatch(/^\s+id\s+BigInt\s+@id @default\(autoincrement\(\)\)/m);
  });

  it("refuses a source it does not recognise rather than writing a wrong schema", () => {
    expect(() => derivePostgresSchema(source.replace('provider = "sqlite"', 'provider = "mysql"'))).toThrow(/prisma\/schema.prisma/);
  });
});
