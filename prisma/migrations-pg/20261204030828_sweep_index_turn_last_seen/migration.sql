-- CreateIndex, without blocking writes to a big table while it builds (the servers of a rolling
-- upgrade go on ingesting). CONCURRENTLY cannot run in a transaction: one statement per migration.
CREATE INDEX CONCURRENTLY "Turn_lastSeenNs_idx" ON "Turn"("lastSeenNs");
