// The PostgreSQL schema is derived from the one source of model definitions.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { derivePostgresSchema } from "@/lib/db/schemaFiles";

const source = fs.readFileSync("prisma/schema.prisma", "utf8");
const blocks = (schema: string) => schema.match(/^(model|enum) \w+ \{[^}]*\}/gm) ?? [];

describe("derivePostgresSchema", () => {
  it("changes the provider and the client folder, and nothing of the models", () => {
    const derived = derivePostgresSchema(source);
    expect(derived).toMatch(/datasource db \{[^}]*provider = "postgresql"/);
    expect(derived).toMatch(/output\s+= "\.\.\/\.\.\/lib\/db\/generated-pg"/);
    expect(derived).not.toContain('"sqlite"');
    expect(blocks(derived)).toEqual(blocks(source));
    expect(blocks(source).length).toBeGreaterThan(10);
  });

  it("refuses a source it does not recognise rather than writing a wrong schema", () => {
    expect(() => derivePostgresSchema(source.replace('provider = "sqlite"', 'provider = "mysql"'))).toThrow(/prisma\/schema.prisma/);
  });
});
