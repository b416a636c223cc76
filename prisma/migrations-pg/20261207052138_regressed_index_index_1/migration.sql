-- CreateIndex, CONCURRENTLY: writes go on while it builds (alone in its migration, lib/db/migrationSql.ts)
CREATE INDEX CONCURRENTLY "Interruption_fingerprint_status_resolvedAtNs_idx" ON "Interruption"("fingerprint", "status", "resolvedAtNs");
