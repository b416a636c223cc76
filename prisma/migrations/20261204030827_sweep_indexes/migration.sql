-- CreateIndex
CREATE INDEX "Conversation_lastSeenNs_idx" ON "Conversation"("lastSeenNs");

-- CreateIndex
CREATE INDEX "Turn_lastSeenNs_idx" ON "Turn"("lastSeenNs");

-- CreateIndex
CREATE INDEX "Call_startNs_idx" ON "Call"("startNs");

-- CreateIndex
CREATE INDEX "Call_systemBlobId_idx" ON "Call"("systemBlobId");

-- CreateIndex
CREATE INDEX "Call_toolsBlobId_idx" ON "Call"("toolsBlobId");

-- CreateIndex
CREATE INDEX "ToolCall_atNs_idx" ON "ToolCall"("atNs");

