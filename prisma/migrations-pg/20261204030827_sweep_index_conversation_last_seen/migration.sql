-- CreateIndex, without blocking writes to a big table while it builds (the servers of a rolling
-- upgrade go on ingesting). CONCURRENTLY cannot run in a transaction: one statement per migration.
CREATE INDEX CONCURRENTLY "Conversation_lastSeenNs_idx" ON "Conversation"("lastSeenNs");
