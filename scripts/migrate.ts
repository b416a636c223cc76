import { config } from "../lib/config/load";
import { migrate } from "../lib/db/migrate";
import { secureDataDir } from "../lib/db/privateFiles";
import { databaseUrl, redactedUrl } from "../lib/db/url";

// `npm start` / `npm run dev` run this first: an invalid configuration fails here, before the server.
// With nothing to migrate it only reads the migration table (well under a second).
Promise.resolve()
  .then(() => config())
  .then(() => secureDataDir()) // 0700 folder, 0600 files: warns about looser modes before the server starts
  .then(() => migrate())
  .then(({ applied }) => {
    const what = applied.length ? `applied ${applied.length} migration${applied.length === 1 ? "" : "s"}` : "up to date";
    console.log(`Database ready (${what}): ${redactedUrl(databaseUrl())}`);
  })
  .catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
