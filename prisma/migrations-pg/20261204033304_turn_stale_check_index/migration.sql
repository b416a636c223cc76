-- CreateIndex without blocking writes to a big table while it builds (the servers of a rolling
-- upgrade go on ingesting), alone in its migration: a failed build can be undone and run again
-- (lib/db/migrationSql.ts, lib/db/migrate.ts).
CREATE INDEX CONCURRENTLY "Turn_endReason_staleCheckedNs_lastSeenNs_idx" ON "Turn"("endReason", "staleCheckedNs", "lastSeenNs");
