// Migrates, once for the run, the template every test database is copied from: a SQLite file
// (its path goes to the test workers in the environment), or with TEST_DATABASE_URL a
// PostgreSQL database.
import fs from "node:fs";
import { migrate } from "../../lib/db/migrate";
import { dropDatabase, withDatabase } from "../../lib/db/postgresAdmin";
import { newTestDatabase, SQLITE_TEMPLATE_ENV, TEMPLATE_DATABASE, testPostgresUrl } from "./database";

export default async function setup(): Promise<(() => Promise<void>) | void> {
  const server = testPostgresUrl();
  if (server) {
    const template = withDatabase(server, TEMPLATE_DATABASE);
    await dropDatabase(template);
    await migrate(template);
    return;
  }
  const template = newTestDatabase("template");
  await migrate(template.url);
  // closed by now: the last connection folded its WAL into the file, which then copies whole
  if (fs.existsSync(`${template.file}-wal`)) throw new Error(`the template database ${template.file} still has a WAL`);
  process.env[SQLITE_TEMPLATE_ENV] = template.file!;
  return template.drop;
}
