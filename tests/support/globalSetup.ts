// With TEST_DATABASE_URL (PostgreSQL), migrates the template every test database is copied from.
import { migrate } from "../../lib/db/migrate";
import { adminQuery, TEMPLATE_DATABASE, testPostgresUrl, withDatabase } from "./database";

export default async function setup(): Promise<void> {
  const server = testPostgresUrl();
  if (!server) return;
  await adminQuery(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
  await migrate(withDatabase(server, TEMPLATE_DATABASE));
}
