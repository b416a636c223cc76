// Entry of the proxy's sender thread: the CLI runs from this source tree (`npx sightdesk`), so
// the worker loads its TypeScript through tsx, a dependency already.
require("tsx/cjs");
require("./senderWorker.ts");
