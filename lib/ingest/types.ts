// The normalized call is lib/domain's (lib/domain/calls.ts). This re-export is for
// lib/ingest/storeCalls.ts and the files split from it (issue #12, ingest part): remove it once
// they import lib/domain/calls directly.
export * from "../domain/calls";
