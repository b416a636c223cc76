// Entry of the ingest worker thread: the server runs from this source tree (`next start` in
// the project folder), so the worker loads its TypeScript through tsx, a dependency already.
require("tsx/cjs");
require("./ingestWorker.ts");
