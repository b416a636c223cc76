// Entry of the ingest worker thread from the sources (`next dev`, tests, a build without the
// worker's bundle; lib/api/ingestWorkerFiles.ts): its TypeScript loads through tsx.
require("tsx/cjs");
require("./ingestWorker.ts");
