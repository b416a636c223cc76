import { config } from "../lib/config/load";
import { migrate } from "../lib/db/migrate";
import { databaseUrl, redactedUrl } from "../lib/db/url";

// `npm start` / `npm run dev` run this first: an invalid configuration fails here, before the server.
Promise.resolve()
  .then(() => config())
  .then(() => migrate())
  .then(() => console.log(`Database ready: ${redactedUrl(databaseUrl())}`))
  .catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
