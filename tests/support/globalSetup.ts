// With TEST_DATABASE_URL (PostgreSQL), migrates the template every test database is copied from.
import { migrate } from "../../lib/db/migrate";
import { dropDatabase, withDatabase } from "../../lib/db/postgresAdmin";
import { TEMPLATE_DATABASE, testPostgresUrl } from "./database";

export default async function setup(): Promise<void> {
  const server = testPostgresUrl();
  if (!server) return;
  const template = withDatabase(server, TEMPLATE_DATABASE);
  await dropDatabase(template);
  await migrate(template);
}
