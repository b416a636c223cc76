-- CreateIndex
CREATE INDEX "Interruption_fingerprint_status_resolvedAtNs_idx" ON "Interruption"("fingerprint", "status", "resolvedAtNs");

