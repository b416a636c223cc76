import { config } from "../lib/config/load";
import { migrate } from "../lib/db/migrate";
import { secureDataDir } from "../lib/db/privateFiles";
import { databaseUrl, redactedUrl } from "../lib/db/url";

// `npm start` / `npm run dev` run this first: an invalid configuration fails here, before the server.
Promise.resolve()
  .then(() => config())
  .then(() => secureDataDir()) // 0700 folder, 0600 files: warns about looser modes before the server starts
  .then(() => migrate())
  .then(() => console.log(`Database ready: ${redactedUrl(databaseUrl())}`))
  .catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
