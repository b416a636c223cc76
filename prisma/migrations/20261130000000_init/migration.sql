-- CreateTable
CREATE TABLE "Agent" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentName" TEXT,
    "pid" INTEGER,
    "host" TEXT,
    "processName" TEXT,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "lastModel" TEXT,
    "exitedAtNs" BIGINT,
    "exitCode" INTEGER,
    "exitSignal" TEXT,
    "oom" BOOLEAN
);

-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "brickedSinceCallId" TEXT,
    "detectState" TEXT NOT NULL DEFAULT '{}'
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "conversationId" TEXT,
    "sessionId" TEXT,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "endReason" TEXT,
    "endedAtNs" BIGINT,
    "finalEventId" TEXT
);

-- CreateTable
CREATE TABLE "Call" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "traceId" TEXT,
    "sessionId" TEXT,
    "conversationId" TEXT,
    "turnId" TEXT,
    "agentName" TEXT,
    "provider" TEXT,
    "model" TEXT,
    "serverAddress" TEXT,
    "startNs" BIGINT NOT NULL,
    "endNs" BIGINT,
    "durationNs" BIGINT,
    "statusCode" INTEGER,
    "error" TEXT,
    "responseBody" TEXT,
    "isSse" BOOLEAN,
    "sseEventCount" INTEGER,
    "sseDone" BOOLEAN,
    "cancelled" BOOLEAN NOT NULL DEFAULT false,
    "maxTokens" INTEGER,
    "inputTokens" INTEGER,
    "outputTokens" INTEGER,
    "cacheReadTokens" INTEGER,
    "cacheCreationTokens" INTEGER,
    "finishReasons" TEXT,
    "systemBlobId" TEXT,
    "toolsBlobId" TEXT,
    "inputTailId" TEXT,
    "inputCount" INTEGER NOT NULL DEFAULT 0,
    "outputTailId" TEXT,
    "outputCount" INTEGER NOT NULL DEFAULT 0,
    "balance" TEXT,
    "extra" TEXT
);

-- CreateTable
CREATE TABLE "Message" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "conversationId" TEXT NOT NULL,
    "parentId" TEXT,
    "seq" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "parts" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "Blob" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "content" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "ToolCall" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT,
    "conversationId" TEXT,
    "callId" TEXT,
    "toolCallId" TEXT NOT NULL,
    "name" TEXT,
    "arguments" TEXT,
    "response" TEXT,
    "success" BOOLEAN,
    "error" TEXT,
    "durationNs" BIGINT,
    "atNs" BIGINT
);

-- CreateTable
CREATE TABLE "Interruption" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT,
    "conversationId" TEXT,
    "turnId" TEXT,
    "callId" TEXT,
    "traceId" TEXT,
    "pid" INTEGER,
    "agentName" TEXT,
    "model" TEXT,
    "type" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "occurredAtNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "occurrences" INTEGER NOT NULL DEFAULT 1,
    "detail" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "assignee" TEXT,
    "acknowledgedBy" TEXT,
    "acknowledgedAtNs" BIGINT,
    "resolvedBy" TEXT,
    "resolvedAtNs" BIGINT,
    "resolutionNote" TEXT,
    "createdAtNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "InterruptionActivity" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "interruptionId" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "note" TEXT,
    "atNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAtNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "createdBy" TEXT,
    "createdAtNs" BIGINT NOT NULL,
    "expiresAtNs" BIGINT,
    "lastUsedAtNs" BIGINT,
    "revokedAtNs" BIGINT
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "Session_agentName_lastSeenNs_idx" ON "Session"("agentName", "lastSeenNs");

-- CreateIndex
CREATE INDEX "Session_lastSeenNs_idx" ON "Session"("lastSeenNs");

-- CreateIndex
CREATE INDEX "Session_agentName_pid_host_idx" ON "Session"("agentName", "pid", "host");

-- CreateIndex
CREATE INDEX "Conversation_sessionId_firstSeenNs_idx" ON "Conversation"("sessionId", "firstSeenNs");

-- CreateIndex
CREATE INDEX "Turn_conversationId_firstSeenNs_idx" ON "Turn"("conversationId", "firstSeenNs");

-- CreateIndex
CREATE INDEX "Turn_sessionId_firstSeenNs_idx" ON "Turn"("sessionId", "firstSeenNs");

-- CreateIndex
CREATE INDEX "Call_conversationId_startNs_idx" ON "Call"("conversationId", "startNs");

-- CreateIndex
CREATE INDEX "Call_sessionId_startNs_idx" ON "Call"("sessionId", "startNs");

-- CreateIndex
CREATE INDEX "Message_conversationId_seq_idx" ON "Message"("conversationId", "seq");

-- CreateIndex
CREATE INDEX "ToolCall_callId_idx" ON "ToolCall"("callId");

-- CreateIndex
CREATE INDEX "Interruption_window_idx" ON "Interruption"("occurredAtNs", "status", "severity", "type", "agentName", "sessionId", "conversationId");

-- CreateIndex
CREATE INDEX "Interruption_agentName_occurredAtNs_idx" ON "Interruption"("agentName", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_type_occurredAtNs_idx" ON "Interruption"("type", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_sessionId_occurredAtNs_idx" ON "Interruption"("sessionId", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_conversationId_occurredAtNs_idx" ON "Interruption"("conversationId", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_fingerprint_occurredAtNs_idx" ON "Interruption"("fingerprint", "occurredAtNs");

-- CreateIndex
CREATE INDEX "InterruptionActivity_interruptionId_atNs_idx" ON "InterruptionActivity"("interruptionId", "atNs");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_hash_key" ON "ApiToken"("hash");

