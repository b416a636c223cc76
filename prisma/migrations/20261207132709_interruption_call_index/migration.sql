-- CreateIndex
CREATE INDEX "Interruption_callId_idx" ON "Interruption"("callId");

