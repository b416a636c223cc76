import { migrate } from "../lib/db/migrate";
import { databaseUrl } from "../lib/db/url";

migrate()
  .then(() => console.log(`Database ready: ${databaseUrl().replace(/\/\/[^@]*@/, "//…@")}`))
  .catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
