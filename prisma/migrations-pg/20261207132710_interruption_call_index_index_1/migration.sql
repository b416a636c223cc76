-- CreateIndex, CONCURRENTLY: writes go on while it builds (alone in its migration, lib/db/migrationSql.ts)
CREATE INDEX CONCURRENTLY "Interruption_callId_idx" ON "Interruption"("callId");
