// Multi-row SQL is lib/db/multiRow.ts. This re-export is for lib/ingest/storeCalls.ts and the
// files split from it (issue #12, ingest part): remove it once they import ./multiRow directly.
export * from "./multiRow";
